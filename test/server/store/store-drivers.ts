// The store's tests run on both drivers: PGlite (in memory) and a real Postgres server (a database of
// its own on the run's throwaway cluster, test/support/postgres-server.ts), through the same openStore.
// PGlite opens a copy of a migrated folder (test/support/pglite-template.ts): its own initdb is slow here.
import { inject } from 'vitest';
import { openStore, type Db } from '../../../server/store';
import { pgliteDataDir } from '../../support/pglite-template';
import { freshDatabase } from '../../support/postgres-server';

export type Driver = 'pglite' | 'postgres';
export const DRIVERS: readonly Driver[] = ['pglite', 'postgres'];

/** A migrated, empty store on `driver`. */
export async function openTestStore(driver: Driver): Promise<{ db: Db; url: string | undefined }> {
  if (driver === 'pglite') return { db: await openStore({ dataDir: await pgliteDataDir() }), url: undefined };
  const url = await freshDatabase(inject('postgresRunDir'));
  return { db: await openStore({ databaseUrl: url }), url };
}

/** Another empty database on the run's cluster (the two-instance tests share one). */
export function postgresDatabase(): Promise<string> {
  return freshDatabase(inject('postgresRunDir'));
}
