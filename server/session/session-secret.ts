// Where the session secret comes from: SESSION_SECRET when set; otherwise one generated once and kept in
// DATA_DIR (`.data/session-secret`, the folder 0700 and the file 0600), so sessions survive a restart by
// default. Only when that folder cannot be used is the secret random per start (the page is then told
// that a restart ends every session, and the banner says why).
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const SESSION_SECRET_FILE = 'session-secret';
export const DEFAULT_DATA_DIR = '.data';

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

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}

async function readKept(file: string): Promise<string | undefined> {
  try {
    const text = (await readFile(file, 'utf8')).trim();
    if (text.length < MIN_KEPT_LENGTH) throw new Error(`${file} holds no usable secret (fewer than ${MIN_KEPT_LENGTH} characters): delete it to have a new one made`);
    return text;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  }
}

/** The secret sessions are sealed under; `configured` (SESSION_SECRET) always wins over a kept one. */
export async function resolveSessionSecret({ configured, dataDir = DEFAULT_DATA_DIR, cwd = process.cwd() }: { configured: string | undefined; dataDir?: string | undefined; cwd?: string }): Promise<ResolvedSecret> {
  if (configured !== undefined) return { secret: configured, source: 'env' };
  const dir = path.resolve(cwd, dataDir);
  const file = path.join(dir, SESSION_SECRET_FILE);
  try {
    const kept = await readKept(file);
    if (kept !== undefined) return { secret: kept, source: 'kept', file };
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // mkdir's mode is masked by the umask and leaves an existing folder as it was: set it outright.
    await chmod(dir, 0o700);
    const secret = randomBytes(32).toString('base64url');
    try {
      // `wx`: two processes starting at once never overwrite each other's secret; the loser reads the winner's.
      await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if (!isErrno(error, 'EEXIST')) throw error;
      const winner = await readKept(file);
      if (winner !== undefined) return { secret: winner, source: 'kept', file };
      throw error;
    }
    await chmod(file, 0o600);
    return { secret, source: 'generated', file };
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
