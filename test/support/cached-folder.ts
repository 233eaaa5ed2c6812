// A folder of node_modules/.cache made once for whatever it was made from (its name carries their hash), by the
// first of the run's workers and processes to ask: the others wait for it. Made in `<dir>.building-*`, then renamed,
// so a folder that is there is whole; a lock folder (`<dir>.lock`) says someone is making it.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** How long one who finds the lock waits for the folder before giving up. */
const WAIT_MS = 120_000;

/** `dir`, made now by `make` (given an empty folder to fill) if it is not there yet; `what` names it in an error. */
export async function cachedFolder(dir: string, what: string, make: (building: string) => Promise<void>): Promise<string> {
  if (existsSync(dir)) return dir;
  await mkdir(path.dirname(dir), { recursive: true });
  const lock = `${dir}.lock`;
  try {
    await mkdir(lock);
  } catch {
    // Another is making it: wait for its rename (or for its lock to go, when it failed).
    const deadline = Date.now() + WAIT_MS;
    while (!existsSync(dir) && existsSync(lock) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    if (existsSync(dir)) return dir;
    throw new Error(`${what} was not made by the worker that started it.`);
  }
  try {
    const building = await mkdtemp(`${dir}.building-`);
    await make(building);
    await rename(building, dir);
    return dir;
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
