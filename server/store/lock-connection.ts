// The collector lock's connection (server/lead/lease.ts): a `pg` connection of its own, past the pool, since an
// advisory lock lives as long as the session that took it. Set up here, beside the pool (pg-db.ts), so every
// connection the console opens is made in the store: keepalives on both sides, a connect timeout, an error
// listener from the start, and a deadline on every query (a late answer is the connection's failure).
import pg from 'pg';
import { withDeadline } from '../lib/deadline';
import type { Queryable } from './db';
import { CONNECT_TIMEOUT_MS } from './pg-db';

/** The lock's connection as pg_stat_activity names it (and tests find it by). */
export const LOCK_APPLICATION_NAME = 'ops-console collector lock';
// Keepalives on the server's side of the lock's session: a client gone without a FIN is noticed in about 8 s.
const SERVER_KEEPALIVES = '-c tcp_keepalives_idle=5 -c tcp_keepalives_interval=1 -c tcp_keepalives_count=3';

export interface LockConnection extends Queryable {
  /** Tells `lost` once the connection fails or ends (never for a query's own error); returns how to stop listening. */
  onLost: (lost: (why: string) => void) => () => void;
  /** Ends the connection at once: a silent socket would never answer end()'s goodbye. */
  destroy: () => void;
}

/**
 * Opens the lock's connection to `databaseUrl`; every query on it fails with DeadlineExceeded past `deadlineMs`.
 * `signal` gives up connecting at once (a server that does not answer would otherwise hold a shutdown for seconds).
 */
export async function openLockConnection(databaseUrl: string, deadlineMs: number, signal?: AbortSignal): Promise<LockConnection> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    application_name: LOCK_APPLICATION_NAME,
    options: SERVER_KEEPALIVES,
    keepAlive: true,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: deadlineMs,
  });
  // From the start: a connection that dies before anyone listens must not end the process.
  client.on('error', () => undefined);
  const destroy = () => client.connection.stream.destroy();
  signal?.addEventListener('abort', destroy, { once: true });
  try {
    await client.connect();
  } catch (error) {
    destroy();
    throw error;
  } finally {
    signal?.removeEventListener('abort', destroy);
  }
  return {
    query: (text, params) => {
      const sent = client.query<never>(text, params ? [...params] : undefined);
      // A query given up on may still fail later: nobody waits for it.
      sent.catch(() => undefined);
      return withDeadline(sent, deadlineMs).then(({ rows }) => ({ rows }));
    },
    onLost(lost) {
      const onError = (error: Error) => lost(`its connection failed (${error.message})`);
      const onEnd = () => lost('its connection ended');
      client.on('error', onError);
      client.on('end', onEnd);
      return () => {
        client.off('error', onError);
        client.off('end', onEnd);
      };
    },
    destroy,
  };
}
