import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Set by Vitest's global setup (pglite-global-setup.ts): the folder of this run, removed when the run ends. */
export const TEST_RUN_DIR_ENV = 'OPS_CONSOLE_TEST_RUN_DIR';

/**
 * A new folder for one test's files (a DATA_DIR, a built client), inside this run's folder so none outlives the
 * run: a store copy is 40–60 MB, and a whole run made some 100 of them (a CI machine's disk filled with them).
 */
export function testTempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(process.env[TEST_RUN_DIR_ENV] ?? tmpdir(), prefix));
}
