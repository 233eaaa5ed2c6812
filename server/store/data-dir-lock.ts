// PGlite is Postgres for one process: two processes opening one folder corrupt it (duplicate keys, an
// index that disagrees with its table, lost writes, then a store that never opens again). So a process
// that may open DATA_DIR's store takes DATA_DIR/store.lock at start, for its whole life, and a second one
// is refused at once with a message naming the folder and the process holding it. A lock whose process is
// gone (a crash, a kill -9, a container restarted) is taken over.
import { open, readFile, rename, rm } from 'node:fs/promises';
import { unlinkSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import * as z from 'zod/mini';

export const LOCK_FILE = 'store.lock';
/** After taking over a stale lock, how long before reading it back: two processes taking it over together find out which one won. */
const SETTLE_MS = 100;

const HolderSchema = z.object({ pid: z.number(), host: z.string(), startedAt: z.string() });
type Holder = z.infer<typeof HolderSchema>;

export class DataDirInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: Holder,
  ) {
    super(
      `DATA_DIR ${dir} is in use by another Ops Console (process ${holder.pid} on ${holder.host}, started ${holder.startedAt}). ` +
        `Its embedded store (PGlite) can be opened by one process only: stop that one, or give this one another DATA_DIR, or DATABASE_URL to share a Postgres server.` +
        (holder.host === hostname() ? '' : ` If ${holder.host} no longer runs it, delete ${path.join(dir, LOCK_FILE)}.`),
    );
    this.name = 'DataDirInUseError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

async function readHolder(file: string): Promise<Holder | undefined> {
  try {
    const parsed = HolderSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A holder that still runs (on this machine: alive; elsewhere: assumed so). */
function stillHolds(holder: Holder | undefined): holder is Holder {
  if (!holder) return false;
  if (holder.host !== hostname()) return true;
  return holder.pid !== process.pid && isAlive(holder.pid);
}

export interface DataDirLock {
  release: () => void;
}

/** Takes `dir`'s store lock for this process, or throws DataDirInUseError naming the process that has it. */
export async function lockDataDir(dir: string): Promise<DataDirLock> {
  const file = path.join(dir, LOCK_FILE);
  const me: Holder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  const mine = JSON.stringify(me);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(mine);
      await handle.close();
      if (attempt > 0) {
        // Taken over from a process that was gone: whoever else did the same at the same moment, one of us wins.
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        const holder = await readHolder(file);
        if (holder && JSON.stringify(holder) !== mine) throw new DataDirInUseError(dir, holder);
      }
      const release = () => {
        try {
          if (readFileSync(file, 'utf8') === mine) unlinkSync(file);
        } catch {
          // Gone already.
        }
      };
      process.once('exit', release);
      return {
        release: () => {
          process.off('exit', release);
          release();
        },
      };
    } catch (error) {
      if (error instanceof DataDirInUseError) throw error;
      if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
      const holder = await readHolder(file);
      if (stillHolds(holder)) throw new DataDirInUseError(dir, holder);
      // Stale (its process is gone) or unreadable (a crash while writing it): moved aside, then taken.
      await rename(file, `${file}.stale-${process.pid}`).catch(() => undefined);
      await rm(`${file}.stale-${process.pid}`, { force: true });
    }
  }
  const holder = await readHolder(file);
  throw holder ? new DataDirInUseError(dir, holder) : new Error(`Could not take the lock ${file}.`);
}
