// The server driver: a `pg` pool on DATABASE_URL, one per process (every instance and worker opens its own).
import pg from 'pg';
import type { Db, Queryable, SqlValue } from './db';

const POOL_SIZE = 5;

export function openPgDb(url: string, poolSize = POOL_SIZE): Db {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle connection the server closed (a restart) must not end the process; the next query takes another.
  pool.on('error', () => undefined);
  // pg's rows are untyped: each table's module names what its query returns.
  const on = (client: pg.PoolClient): Queryable => ({
    query: async (text: string, params: readonly SqlValue[] = []) => ({ rows: (await client.query<never>(text, [...params])).rows }),
  });
  return {
    query: async (text: string, params: readonly SqlValue[] = []) => ({ rows: (await pool.query<never>(text, [...params])).rows }),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const value = await fn(on(client));
        await client.query('COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
