import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, LOCK_FILE, lockDataDir, processStartOf, STALE_AFTER_MS } from '../../../server/store/data-dir-lock';
import { testTempDir } from '../../support/test-tmp';

// A stale lock in DATA_DIR does not block start (server/store/data-dir-lock.ts): one whose process is gone, one whose
// pid now names an unrelated process (a restarted container reuses pids), one left by another host that stopped
// refreshing it. A live server's lock still does.

const HOUR_MS = 60 * 60_000;

/** A live process that is not an Ops Console server. */
let unrelated: ChildProcess;

beforeAll(async () => {
  unrelated = spawn('sleep', ['60'], { stdio: 'ignore' });
  await new Promise((resolve) => unrelated.once('spawn', resolve));
});
afterAll(() => {
  unrelated.kill('SIGKILL');
});

async function lockedBy(holder: Record<string, unknown>, touchedAgoMs = 0): Promise<string> {
  const dir = await testTempDir('lock-');
  const file = path.join(dir, LOCK_FILE);
  await writeFile(file, JSON.stringify(holder));
  const at = new Date(Date.now() - touchedAgoMs);
  await utimes(file, at, at);
  return dir;
}

/** Takes the lock (released at once): whose it is then. */
async function takes(dir: string): Promise<number> {
  const lock = await lockDataDir(dir);
  const pid = (JSON.parse(await readFile(path.join(dir, LOCK_FILE), 'utf8')) as { pid: number }).pid;
  lock.release();
  return pid;
}

describe("DATA_DIR's lock", () => {
  it('is taken over when its process is gone', async () => {
    const gone = spawn('true');
    await new Promise((resolve) => gone.once('exit', resolve));
    expect(await takes(await lockedBy({ pid: gone.pid, host: hostname(), startedAt: new Date().toISOString() }))).toBe(process.pid);
  });

  it('is taken over when its pid is alive but another process than the one that wrote it', async () => {
    const pid = unrelated.pid!;
    // Written by a process that started at another moment (the pid since reused).
    expect(await takes(await lockedBy({ pid, host: hostname(), startedAt: new Date().toISOString(), processStart: '1' }))).toBe(process.pid);
    // A lock from before the start time was recorded: the pid's process started after the lock was written.
    expect(await takes(await lockedBy({ pid, host: hostname(), startedAt: new Date(Date.now() - HOUR_MS).toISOString() }))).toBe(process.pid);
  });

  it('refuses while the process that wrote it runs, naming it', async () => {
    const pid = unrelated.pid!;
    const dir = await lockedBy({ pid, host: hostname(), startedAt: new Date().toISOString(), processStart: processStartOf(pid) });
    const refused = await lockDataDir(dir).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataDirInUseError);
    expect((refused as Error).message).toContain(`process ${pid} on ${hostname()}`);
  });

  it("takes another host's lock once its heartbeat is older than the window, and refuses a fresh one", async () => {
    const other = { pid: 4242, host: 'another-host.example', startedAt: new Date(Date.now() - HOUR_MS).toISOString() };
    const fresh = await lockDataDir(await lockedBy(other, 5_000)).catch((error: unknown) => error);
    expect(fresh).toBeInstanceOf(DataDirInUseError);
    expect((fresh as Error).message).toContain('another-host.example');
    expect(await takes(await lockedBy(other, STALE_AFTER_MS + 60_000))).toBe(process.pid);
  });

  it('keeps its own lock fresh while held, so another host never takes it from a live server', async () => {
    const dir = await testTempDir('lock-');
    const lock = await lockDataDir(dir, { heartbeatMs: 20 });
    try {
      const file = path.join(dir, LOCK_FILE);
      const old = new Date(Date.now() - HOUR_MS);
      await utimes(file, old, old);
      await expect.poll(async () => Date.now() - (await stat(file)).mtimeMs).toBeLessThan(STALE_AFTER_MS);
    } finally {
      lock.release();
    }
  });
});
