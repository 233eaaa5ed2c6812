// Where the session secret comes from: SESSION_SECRET when set; otherwise one generated once and kept in
// DATA_DIR (`.data/session-secret`, the folder 0700 and the file 0600), so sessions survive a restart by
// default. Only when that folder cannot be used is the secret random per start (the page is then told
// that a restart ends every session, and the banner says why).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { CONFIG_DEFAULTS } from '../config';
import { keep, readKept } from '../store/kept-file';

export const SESSION_SECRET_FILE = 'session-secret';

export type SecretSource = 'env' | 'kept' | 'generated' | 'random';

export interface ResolvedSecret {
  /** Undefined: random bytes per start (createSessions makes them). */
  secret: string | undefined;
  source: SecretSource;
  /** The file the secret is kept in, when it is. */
  file?: string;
  /** Why a kept secret could not be used (source `random`). */
  problem?: string;
}

const MIN_KEPT_LENGTH = 32;

/** The secret sessions are sealed under; `configured` (SESSION_SECRET) always wins over a kept one. */
export async function resolveSessionSecret({
  configured,
  dataDir = CONFIG_DEFAULTS.dataDir,
  cwd = process.cwd(),
}: {
  configured: string | undefined;
  dataDir?: string | undefined;
  cwd?: string;
}): Promise<ResolvedSecret> {
  if (configured !== undefined) return { secret: configured, source: 'env' };
  const dir = path.resolve(cwd, dataDir);
  try {
    const kept = await readKept(dir, SESSION_SECRET_FILE, MIN_KEPT_LENGTH);
    if (kept !== undefined) return { secret: kept, source: 'kept', file: path.join(dir, SESSION_SECRET_FILE) };
    const made = await keep(dir, SESSION_SECRET_FILE, randomBytes(32).toString('base64url'), MIN_KEPT_LENGTH);
    return { secret: made.value, source: 'generated', file: made.file };
  } catch (error) {
    return { secret: undefined, source: 'random', problem: error instanceof Error ? error.message : String(error) };
  }
}

/** The banner's line about sessions. */
export function secretBannerLine(resolved: ResolvedSecret): string | undefined {
  switch (resolved.source) {
    case 'env':
      return undefined;
    case 'kept':
    case 'generated':
      return `Sessions: secret kept in ${resolved.file ?? SESSION_SECRET_FILE} (sessions survive restarts; set SESSION_SECRET to share them across instances)`;
    case 'random':
      return `Sessions: a new random secret, so a restart ends every session (could not keep one in DATA_DIR: ${resolved.problem ?? 'unknown'}; or set SESSION_SECRET)`;
  }
}
