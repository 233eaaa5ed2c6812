// The store's one interface (docs/architecture.md, "The store"): every table's queries speak SQL through
// it, and both drivers implement it (PGlite in DATA_DIR, pg for DATABASE_URL), so the SQL is the same on
// both. Values always travel as parameters ($1, $2, …), never inside the text.

export type SqlValue = string | number | boolean | null | Date | readonly string[] | readonly number[];

export interface QueryResult<R> {
  rows: R[];
}

/** What a query runs on: the store itself, or one transaction of it. */
export interface Queryable {
  query<R>(text: string, params?: readonly SqlValue[]): Promise<QueryResult<R>>;
}

/** NOTIFY messages on a channel, heard on a connection of their own. */
export interface ChannelListener {
  /** Each NOTIFY's payload. */
  onMessage: (payload: string) => void;
  /** The connection listens (again): what was sent while it did not is read by the caller now. */
  onListening: () => void;
  /** The connection was lost: nothing is heard until onListening again. */
  onLost?: () => void;
}

export interface Db extends Queryable {
  /** Runs `fn` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Listens on `channel` while the returned stop is not called, reconnecting after a lost connection. Only a
   * store shared between processes has one (a Postgres server); with one process there is no one to hear.
   */
  listen?: (channel: string, listener: ChannelListener) => () => Promise<void>;
  /**
   * The embedded store answers one statement at a time: a heavy read is cut into statements of about this many rows
   * each, so that a request's read waits for a short statement, never for a whole window's
   * (docs/architecture.md, "The store"). Undefined on a server, whose connections answer side by side.
   */
  heavyStatementRows?: number;
  /** A pool's connections now (a Postgres server's driver; PGlite has none): metrics read it. */
  poolStats?: () => PoolStats;
  /** The embedded store's upkeep statements run, and the statements that arrived while one ran and so waited for it (none on Postgres). */
  upkeepStats?: () => UpkeepStats;
  close(): Promise<void>;
}

export interface UpkeepStats {
  /** Upkeep statements (VACUUM, ANALYZE) run since the store opened. */
  statements: number;
  /** Statements that arrived while one of those ran, and waited for it. */
  waited: number;
}

export interface PoolStats {
  /** Connections open. */
  total: number;
  /** Of those, waiting for a query. */
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

/**
 * The console's store cannot be reached (or did not answer in time): what the page and the log say names the
 * store, never the API. Routes answer 503 with STORE_UNAVAILABLE_CODE.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

export const STORE_UNAVAILABLE_CODE = 'store_unavailable';
