// PGlite is Postgres for one process: two processes opening one folder corrupt it (duplicate keys, an
// index that disagrees with its table, lost writes, then a store that never opens again). So a process
// that may open DATA_DIR's store takes DATA_DIR/store.lock at start, for its whole life, and a second one
// is refused at once with a message naming the folder and the process holding it. A stale lock is taken over:
// its process is gone (a crash, a kill -9); its pid now names another process (a container restarted: the lock
// records the holder's start time, and the pid's differs); or it is another host's and its heartbeat (the file's
// modification time, touched every HEARTBEAT_MS while held) is older than STALE_AFTER_MS.
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { unlinkSync, readFileSync, utimesSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import * as z from 'zod/mini';

export const LOCK_FILE = 'store.lock';
/** After taking over a stale lock, how long before reading it back: two processes taking it over together find out which one won. */
const SETTLE_MS = 100;

/** How often a held lock's file is touched, so another host can tell a live holder from a dead one. */
export const HEARTBEAT_MS = 10_000;
/** Another host's lock untouched for this long is stale: several heartbeats missed. */
export const STALE_AFTER_MS = 60_000;

// processStart: the holder's start time as its system counts it (/proc/<pid>/stat); absent where there is no /proc,
// and in the locks of servers before it was recorded.
const HolderSchema = z.object({ pid: z.number(), host: z.string(), startedAt: z.string(), processStart: z.optional(z.string()) });
type Holder = z.infer<typeof HolderSchema>;

export class DataDirInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: Holder,
  ) {
    super(
      `DATA_DIR ${dir} is in use by another Ops Console (process ${holder.pid} on ${holder.host}, started ${holder.startedAt}). ` +
        `Its embedded store (PGlite) can be opened by one process only: stop that one, or give this one another DATA_DIR, or DATABASE_URL to share a Postgres server.` +
        (holder.host === hostname() ? '' : ` Its lock is taken over once ${holder.host} has not refreshed it for ${STALE_AFTER_MS / 1_000} s.`),
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

/** When process `pid` started, in clock ticks since boot (Linux's /proc/<pid>/stat, field 22); undefined elsewhere. */
export function processStartOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted from its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** When process `pid` started (epoch ms; Linux), for a lock that did not record processStart. */
function processStartedAt(pid: number): number | undefined {
  const ticks = processStartOf(pid);
  try {
    const boot = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
    // USER_HZ is 100 on every Linux build Node runs on.
    return ticks === undefined || boot === undefined ? undefined : Number(boot) * 1_000 + Number(ticks) * 10;
  } catch {
    return undefined;
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

/** A holder that still runs: on this machine, its pid alive and the same process; elsewhere, its heartbeat recent. */
function stillHolds(holder: Holder | undefined, touchedMs: number): holder is Holder {
  if (!holder) return false;
  if (holder.host !== hostname()) return Date.now() - touchedMs < STALE_AFTER_MS;
  if (holder.pid === process.pid || !isAlive(holder.pid)) return false;
  if (holder.processStart !== undefined) {
    const now = processStartOf(holder.pid);
    return now === undefined || now === holder.processStart;
  }
  // A lock without its holder's start time: a process that started after the lock was written did not write it.
  const started = processStartedAt(holder.pid);
  return started === undefined || started <= Date.parse(holder.startedAt) + 2_000;
}

export interface DataDirLock {
  release: () => void;
}

/** Takes `dir`'s store lock for this process, or throws DataDirInUseError naming the process that has it. */
export async function lockDataDir(dir: string, { heartbeatMs = HEARTBEAT_MS }: { heartbeatMs?: number } = {}): Promise<DataDirLock> {
  const file = path.join(dir, LOCK_FILE);
  const processStart = processStartOf(process.pid);
  const me: Holder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), ...(processStart ? { processStart } : {}) };
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
      const heartbeat = setInterval(() => {
        try {
          const now = new Date();
          utimesSync(file, now, now);
        } catch {
          // Gone (a folder removed under it): nothing to keep fresh.
        }
      }, heartbeatMs);
      heartbeat.unref();
      process.once('exit', release);
      return {
        release: () => {
          clearInterval(heartbeat);
          process.off('exit', release);
          release();
        },
      };
    } catch (error) {
      if (error instanceof DataDirInUseError) throw error;
      if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
      const holder = await readHolder(file);
      const touched = await stat(file).then(
        (info) => info.mtimeMs,
        () => Date.now(),
      );
      if (stillHolds(holder, touched)) throw new DataDirInUseError(dir, holder);
      // Stale (its process is gone, its pid another's, its heartbeat long stopped) or unreadable (a crash while writing it): moved aside, then taken.
      await rename(file, `${file}.stale-${process.pid}`).catch(() => undefined);
      await rm(`${file}.stale-${process.pid}`, { force: true });
    }
  }
  const holder = await readHolder(file);
  throw holder ? new DataDirInUseError(dir, holder) : new Error(`Could not take the lock ${file}.`);
}
