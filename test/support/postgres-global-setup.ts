import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { preparePostgresDir, stopPostgres } from './postgres-server';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the run's throwaway Postgres lives once a store test asks for it (test/support/postgres-server.ts). */
    postgresRunDir: string;
  }
}

// Vitest's global setup: a folder for the run's Postgres cluster (started only if a store test runs),
// and the teardown that stops and removes it, however the tests ended.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ops-console-pg-'));
  await preparePostgresDir(dir);
  project.provide('postgresRunDir', dir);
  return () => stopPostgres(dir);
}
