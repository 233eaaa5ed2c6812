// Sign-outs not yet in the store, kept on this machine's disk (docs/session-and-security.md, "When a session ends"): one
// small file per sign-out in DATA_DIR/pending-sign-outs (the OS's temp folder without a DATA_DIR), written whole
// (a temporary file renamed over it) before the sign-out answers, removed once the store has it, and read back
// at start. So a sign-out made while the store is down outlives a restart of its instance: without it, the cookie
// worked again everywhere. Instances sharing a folder each read every file: writing one twice to the store does
// no harm (it is kept once), and whichever writes it removes it.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as z from 'zod/mini';
import type { RevocationReason } from '../store/revoked-sessions';

export const PENDING_SIGN_OUTS_DIR = 'pending-sign-outs';

const PendingSchema = z.object({ sid: z.string(), exp: z.number(), reason: z.enum(['signed-out', 'rejected']) });

export interface PendingSignOut {
  sid: string;
  exp: number;
  reason: RevocationReason;
}

export interface PendingSignOuts {
  readonly dir: string;
  /** Every sign-out kept here, still in force at `now` (the expired ones' files are removed). */
  load: (now: number) => PendingSignOut[];
  /** Kept before it returns; throws when the disk refuses (the caller holds it in memory and says so). */
  keep: (entry: PendingSignOut) => void;
  /** The store has it: its file goes. */
  forget: (sid: string) => void;
}

/** The folder pending sign-outs are kept in: DATA_DIR's, else one in the OS's temp folder. */
export function pendingSignOutsDir(dataDir: string | undefined): string {
  return dataDir ? path.resolve(dataDir, PENDING_SIGN_OUTS_DIR) : path.join(tmpdir(), `ops-console-${PENDING_SIGN_OUTS_DIR}`);
}

export function createPendingSignOuts(dir: string): PendingSignOuts {
  // A session id is as secret as the cookie's seal makes it: file names carry its hash, never the id.
  const fileOf = (sid: string) => path.join(dir, `${createHash('sha256').update(sid).digest('hex').slice(0, 32)}.json`);
  return {
    dir,
    load(now) {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return [];
      }
      const entries: PendingSignOut[] = [];
      for (const name of names.filter((file) => file.endsWith('.json'))) {
        const file = path.join(dir, name);
        try {
          const parsed = PendingSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
          if (parsed.success && parsed.data.exp > now) entries.push(parsed.data);
          else rmSync(file, { force: true });
        } catch {
          // Removed by another instance meanwhile, or not ours to read: nothing to hold.
        }
      }
      return entries;
    },
    keep(entry) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const file = fileOf(entry.sid);
      const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      writeFileSync(temporary, JSON.stringify(entry), { mode: 0o600 });
      renameSync(temporary, file);
    },
    forget(sid) {
      try {
        rmSync(fileOf(sid), { force: true });
      } catch {
        // Left for the next start, which writes it to the store again (once) and removes it then.
      }
    },
  };
}
