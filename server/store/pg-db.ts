// The server driver: a `pg` pool on DATABASE_URL, one per process. A Postgres the console does not own may
// go away at any moment (a restart, a failover, a killed connection): every connection has an error
// listener (a connection that dies idle, mid-query or mid-transaction fails that query or transaction,
// never the process), every query a deadline, and a connection that failed is destroyed, not reused.
import pg from 'pg';
import type { Log } from '../log/logger';
import { createOutage, type Outage } from '../log/outage';
import { StoreUnavailableError, type ChannelListener, type Db, type Queryable, type SqlValue } from './db';

const POOL_SIZE = 5;
/** A query (or a wait for a connection) that takes longer fails: the page hears that the store is slow, not nothing. */
export const QUERY_TIMEOUT_MS = 15_000;
export const CONNECT_TIMEOUT_MS = 5_000;
/** A listener whose connection was lost tries again after this long. */
const LISTEN_RETRY_MS = 2_000;

// SQLSTATE classes and codes that mean the connection (or the server) is gone, not that the SQL was wrong:
// 08 connection exception, 57P01-03 shut down / cannot connect now, 57014 cancelled (the statement timeout),
// 53 insufficient resources (too many connections), 25006 read-only (a standby after a failover).
const GONE_SQLSTATE = /^(?:08|53|57P0[1-3]$|57014$|25006$)/;
const GONE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const GONE_MESSAGE = /Connection terminated|Query read timeout|timeout exceeded when trying to connect|not queryable|Connection ended|connection timeout/i;

function codeOf(error: unknown): string | undefined {
  return error && typeof error === 'object' && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** Whether a failure is the connection's or the server's (the store is unavailable), not the statement's. */
export function isConnectionFailure(error: unknown): boolean {
  const code = codeOf(error);
  if (code !== undefined && (GONE_ERRNO.has(code) || GONE_SQLSTATE.test(code))) return true;
  return error instanceof Error && GONE_MESSAGE.test(error.message);
}

/** The server's host and database, for messages: never its user or password. */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `Postgres at ${parsed.host}${parsed.pathname}`;
  } catch {
    return 'Postgres';
  }
}

/** What went wrong, in the driver's words, with its code when the words leave it out. */
function detailOf(error: unknown): string {
  const code = codeOf(error);
  const detail = error instanceof Error ? error.message : String(error);
  return `${detail}${code && !detail.includes(code) ? ` (${code})` : ''}`;
}

function unavailable(where: string, error: unknown): StoreUnavailableError {
  return new StoreUnavailableError(`The console's store (${where}) is unavailable: ${detailOf(error)}.`, { cause: error });
}

export interface PgDbOptions {
  poolSize?: number;
  queryTimeoutMs?: number;
  /** Where the listening connection's loss is told. */
  log?: Log;
  /**
   * The store's outage (store.ts): a query or an idle connection that failed for the connection's or the
   * server's sake is one of its failures, a query answered ends it. Its own when not given.
   */
  outage?: Outage;
}

export function openPgDb(url: string, { poolSize = POOL_SIZE, queryTimeoutMs = QUERY_TIMEOUT_MS, log = () => undefined, ...given }: PgDbOptions = {}): Db {
  const where = describeDatabaseUrl(url);
  const outage = given.outage ?? createOutage(log, { event: 'store.unavailable', fields: { store: where }, over: `Store: ${where} answers again` });
  const config: pg.PoolConfig = {
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // The server ends a statement past its deadline; the client gives up a little later (a server that does not answer at all).
    statement_timeout: queryTimeoutMs,
    query_timeout: queryTimeoutMs + 1_000,
    // A transaction whose process hung (or whose connection the client lost) does not hold its locks for long.
    idle_in_transaction_session_timeout: 2 * queryTimeoutMs,
    keepAlive: true,
    // Connections kept while idle (pg's default closes them after 10 s): a new backend maps each page of the shared
    // buffers it reads, and at ten million operations a read of every project's insights on fresh connections took
    // twice as long as on warm ones (docs/benchmarks.md). An idle connection keeps no process from exiting.
    idleTimeoutMillis: 0,
    allowExitOnIdle: true,
  };
  const pool = new pg.Pool(config);
  /** A failure of the connection's or the server's: the outage told, the error every caller gets. */
  const gone = (error: unknown) => {
    outage.failed(`Store: ${where} does not answer (${detailOf(error)}); what needs the store answers 503 until it does`);
    return unavailable(where, error);
  };
  // An idle connection the server closed (a restart, a killed backend): the pool drops it; the next query takes another.
  pool.on('error', (error) => outage.failed(`Store: an idle connection to ${where} ended (${error.message}); it is replaced on the next query`));
  const run = async (target: pg.Pool | pg.PoolClient, text: string, params: readonly SqlValue[] | undefined): Promise<{ rows: never[] }> => {
    try {
      // pg's rows are untyped: each table's module names what its query returns.
      const rows = (await target.query<never>(text, params ? [...params] : undefined)).rows;
      outage.recovered();
      return { rows };
    } catch (error) {
      if (!isConnectionFailure(error)) throw error;
      throw gone(error);
    }
  };
  return {
    query: (text, params) => run(pool, text, params),
    async transaction(fn) {
      // While checked out the pool does not listen to it: a connection that dies now must not end the process.
      let broken: Error | undefined;
      const onError = (error: Error) => {
        broken ??= error;
      };
      let client: pg.PoolClient;
      try {
        client = await checkOut(pool, onError);
      } catch (error) {
        throw gone(error);
      }
      const on: Queryable = { query: (text, params) => run(client, text, params) };
      try {
        await on.query('BEGIN');
        const value = await fn(on);
        await on.query('COMMIT');
        return value;
      } catch (error) {
        if (!broken)
          await client
            .query('ROLLBACK')
            .catch((rollbackFailed: unknown) => void (broken = rollbackFailed instanceof Error ? rollbackFailed : new Error(String(rollbackFailed))));
        throw broken && !(error instanceof StoreUnavailableError) ? unavailable(where, broken) : error;
      } finally {
        client.off('error', onError);
        // A connection that failed is destroyed, not handed to the next query.
        client.release(broken);
      }
    },
    listen: (channel, listener) => listenOn(config, channel, listener, log),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}

/**
 * A connection of the pool's, listened to by `onError` from the moment the pool hands it over: the read that
 * frees it (a query's answer) may also carry the server's goodbye, processed before an `await` would resume.
 */
function checkOut(pool: pg.Pool, onError: (error: Error) => void): Promise<pg.PoolClient> {
  return new Promise((resolve, reject) => {
    pool.connect((error, client) => {
      if (error || !client) {
        reject(error ?? new Error('The pool handed over no connection.'));
        return;
      }
      client.on('error', onError);
      resolve(client);
    });
  });
}

/** A connection of its own that LISTENs on `channel`, connected again (and `onListening` called) after each loss. */
function listenOn(config: pg.PoolConfig, channel: string, listener: ChannelListener, log: Log): () => Promise<void> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const deaf = createOutage(log, { event: 'store.listen_lost', fields: { channel }, over: `Store: listening on ${channel} again` });
  const connect = async () => {
    if (stopped) return;
    const connection = new pg.Client({ ...config, keepAlive: true });
    client = connection;
    // Functions, not values: each await may have stopped it or replaced the connection.
    const current = () => !stopped && client === connection;
    const lost = (error?: Error) => {
      if (client !== connection) return;
      client = undefined;
      connection.removeAllListeners('notification');
      void connection.end().catch(() => undefined);
      listener.onLost?.();
      if (stopped) return;
      deaf.failed(`Store: stopped listening on ${channel} (${error?.message ?? 'connection ended'}); connecting again every ${LISTEN_RETRY_MS / 1_000} s`);
      retry = setTimeout(() => void connect(), LISTEN_RETRY_MS);
      retry.unref();
    };
    connection.on('error', lost);
    connection.on('end', () => lost());
    connection.on('notification', (message) => {
      if (message.channel === channel) listener.onMessage(message.payload ?? '');
    });
    try {
      await connection.connect();
      // A channel name cannot be a parameter: it is one of the console's own constants, quoted as an identifier.
      await connection.query(`LISTEN "${channel.replaceAll('"', '""')}"`);
      if (!current()) return;
      deaf.recovered();
      listener.onListening();
    } catch (error) {
      lost(error instanceof Error ? error : new Error(String(error)));
    }
  };
  void connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const last = client;
    client = undefined;
    await last?.end().catch(() => undefined);
  };
}
