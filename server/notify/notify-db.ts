// The store's connection as server/store/db.ts (the archive, issue 22) defines it: the same SQL on PGlite
// and on a Postgres server. Written here as the contract until the archive's module lands; any value of
// that type fits this one.

export interface Db {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the contract: the caller names its rows' type
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
