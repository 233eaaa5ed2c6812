// The store's one interface (DESIGN §2, server/store): every table's queries speak SQL through it, and
// both drivers implement it (PGlite in DATA_DIR, pg for DATABASE_URL), so the SQL is the same on both.
// Values always travel as parameters ($1, $2, …), never inside the text.

export type SqlValue = string | number | boolean | null | Date | readonly string[] | readonly number[];

export interface QueryResult<R> {
  rows: R[];
}

/** What a query runs on: the store itself, or one transaction of it. */
export interface Queryable {
  query<R>(text: string, params?: readonly SqlValue[]): Promise<QueryResult<R>>;
}

export interface Db extends Queryable {
  /** Runs `fn` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
