// The simulator's demo world kept in DATA_DIR (docs/simulator.md#the-demo-world): read once at start, written a few
// seconds after it changes and when the server stops, so a restart finds the same operations (ids and times) and
// the branches people made, as the archive and the webhooks of that DATA_DIR saw them. Written to a temporary file
// and renamed, so a crash mid-write leaves the previous one.
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { worldSnapshotSchema, type WorldSnapshot } from '../../sim/control-plane';
import type { Log } from '../log/logger';

/**
 * The kept world's file: one per SIM_HUGE_PROJECT size, since that setting seeds a different world (the bench's
 * 20,000-operation one and the plain demo each hold still, beside each other in one DATA_DIR).
 */
export function demoWorldFile(hugeProject: number): string {
  return hugeProject > 0 ? `demo-world-huge-${hugeProject}.json` : 'demo-world.json';
}
/** How often a changed world is written: what a crash (not a stop) may lose. */
export const DEMO_WORLD_SAVE_MS = 5_000;

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}

/** The world a previous start kept, undefined when none is (or it cannot be read: then the log says so and a new one is seeded). */
export async function readDemoWorld(dataDir: string, hugeProject: number, log: Log): Promise<WorldSnapshot | undefined> {
  const file = path.join(dataDir, demoWorldFile(hugeProject));
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (!isErrno(error, 'ENOENT'))
      log(`Simulator: the demo world kept in ${file} cannot be read (${error instanceof Error ? error.message : String(error)}); seeding a new one`);
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = worldSnapshotSchema.safeParse(json);
  if (!parsed.success) {
    log(`Simulator: ${file} is not a demo world this version keeps; seeding a new one (delete the file to silence this)`);
    return undefined;
  }
  return parsed.data;
}

export interface DemoWorldKeeper {
  /** Writes the world now if it changed since the last write. */
  save: () => Promise<void>;
  /** Stops the periodic writes after a last one. */
  close: () => Promise<void>;
}

/** Keeps `snapshot()` in DATA_DIR: every DEMO_WORLD_SAVE_MS when it changed, and on `close`. */
export function keepDemoWorld(
  dataDir: string,
  hugeProject: number,
  world: { snapshot: () => WorldSnapshot; signature: () => string },
  log: Log,
  everyMs = DEMO_WORLD_SAVE_MS,
): DemoWorldKeeper {
  const file = path.join(dataDir, demoWorldFile(hugeProject));
  let lastWritten: string | undefined;
  let failing = false;
  let writing: Promise<void> = Promise.resolve();

  const write = async (last: boolean) => {
    // Nothing new since the last write: no snapshot taken (a big world's JSON costs tens of milliseconds). The
    // write on stopping takes one anyway, for what the signature leaves out (a key's last use).
    const signature = world.signature();
    if (signature === lastWritten && !last) return;
    try {
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      await writeFile(`${file}.tmp`, JSON.stringify(world.snapshot()), { mode: 0o600 });
      await chmod(`${file}.tmp`, 0o600);
      await rename(`${file}.tmp`, file);
      lastWritten = signature;
      failing = false;
    } catch (error) {
      // One line per run of failures, not one per attempt.
      if (!failing)
        log(
          `Simulator: the demo world could not be kept in ${file} (${error instanceof Error ? error.message : String(error)}); trying again in ${everyMs / 1000} s`,
        );
      failing = true;
    }
  };
  const save = (last = false) => (writing = writing.then(() => write(last)));
  const timer = setInterval(() => void save(), everyMs);
  timer.unref();
  return {
    save: () => save(),
    close: async () => {
      clearInterval(timer);
      await save(true);
    },
  };
}
