// The embedded driver: PGlite (Postgres compiled to WebAssembly, in this process) over a folder of
// DATA_DIR. One process may open a folder (data-dir-lock.ts): several processes share a Postgres server.
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable, SqlValue } from './db';

function queryable(target: Pick<PGlite, 'query' | 'exec'>): Queryable {
  return {
    // Untyped rows (never[]), as pg's: each table's module names what its query returns.
    async query(text: string, params?: readonly SqlValue[]) {
      // Without parameters, as pg does (the simple protocol), the text may hold several statements (a migration file).
      if (params === undefined) {
        const results = await target.exec(text);
        return { rows: (results.at(-1)?.rows ?? []) as never[] };
      }
      return { rows: (await target.query<never>(text, [...params])).rows };
    },
  };
}

/** `dir` undefined: in memory (tests). */
export async function openPgliteDb(dir: string | undefined): Promise<Db> {
  if (dir !== undefined) await mkdir(dir, { recursive: true, mode: 0o700 });
  const pglite = dir === undefined ? new PGlite() : new PGlite(dir);
  await pglite.waitReady;
  return {
    ...queryable(pglite),
    transaction: (fn) => pglite.transaction((tx) => fn(queryable(tx))),
    close: () => pglite.close(),
  };
}
