import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { templateDir } from './pglite-template';
import { TEST_RUN_DIR_ENV } from './test-tmp';

// Vitest's global setup: the migrated PGlite folder the tests' stores are copied from, made once before any
// test asks for one (PGlite's first start takes 3–15 s of CPU here: no test's own time limit should pay it);
// and the folder of this run, where the tests' own folders go (test-tmp.ts), removed when the run ends.
export default async function setup(): Promise<() => Promise<void>> {
  await templateDir();
  const runDir = await mkdtemp(path.join(tmpdir(), 'ops-console-test-run-'));
  // The workers start after this, with this process's environment.
  process.env[TEST_RUN_DIR_ENV] = runDir;
  return async () => {
    await rm(runDir, { recursive: true, force: true });
  };
}
