// Only one process may open a PGlite folder: with several workers (server/cluster.ts) the primary opens
// it and lends it over loopback, like the simulator (server/simulator-link.ts). A worker's Db sends each
// query (text and parameters, dates tagged) to the primary; a transaction holds one of the primary's
// open until the worker commits or rolls back (or TRANSACTION_TIMEOUT_MS passes). A random token,
// handed to the workers in their environment, keeps other local processes out.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as z from 'zod/mini';
import type { Db, Queryable, SqlValue } from './db';

export const STORE_LINK_ENV = 'OPS_CONSOLE_STORE_URL';
export const STORE_TOKEN_ENV = 'OPS_CONSOLE_STORE_TOKEN';
const TRANSACTION_TIMEOUT_MS = 30_000;
const MAX_BODY = 64 * 1024 * 1024;

// Dates travel as {"$date": iso} both ways; JSON would make them strings.
function encode(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key: string, item: unknown) {
    const raw = this[key];
    return raw instanceof Date ? { $date: raw.toISOString() } : item;
  });
}

function decode(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 1 && '$date' in value && typeof value.$date === 'string' ? new Date(value.$date) : value,
  );
}

const SqlValueSchema = z.union([z.string(), z.number(), z.boolean(), z.null(), z.date(), z.array(z.string()), z.array(z.number())]);
const QueryRequestSchema = z.object({ text: z.string(), params: z.optional(z.array(SqlValueSchema)), tx: z.optional(z.string()) });
const TxRequestSchema = z.object({ tx: z.string() });
const RowsSchema = z.object({ rows: z.array(z.unknown()) });
const ErrorSchema = z.object({ error: z.string() });
const TxSchema = z.object({ tx: z.string() });

function readAll(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy(new Error('too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

interface OpenTransaction {
  tx: Queryable;
  finish: (commit: boolean) => void;
  /** Whether it committed; rejects when the commit failed. */
  done: Promise<boolean>;
}

class RolledBack extends Error {}

/** The primary's side: the store (opened on the first query when not yet) served on 127.0.0.1 (a random port) to holders of `token`. */
export async function serveStoreLink(store: () => Promise<Db>, token: string, isOpen: () => boolean = () => true): Promise<{ origin: string; close: () => Promise<void> }> {
  const transactions = new Map<string, OpenTransaction>();
  let next = 0;
  const begin = async (): Promise<string> => {
    const id = String(++next);
    const db = await store();
    return new Promise<string>((ready, failed) => {
      const done: Promise<boolean> = db
        .transaction(async (tx) => {
          const commit = await new Promise<boolean>((resolve) => {
            setTimeout(() => resolve(false), TRANSACTION_TIMEOUT_MS).unref();
            transactions.set(id, { tx, finish: resolve, done });
            ready(id);
          });
          if (!commit) throw new RolledBack();
          return true;
        })
        .catch((error: unknown) => {
          failed(error instanceof Error ? error : new Error(String(error)));
          if (error instanceof RolledBack) return false;
          throw error;
        })
        .finally(() => transactions.delete(id));
      done.catch(() => undefined);
    });
  };
  const answer = async (req: http.IncomingMessage): Promise<{ status: number; body: unknown }> => {
    const parsed = decode(await readAll(req));
    const path = req.url ?? '';
    if (path === '/query') {
      const request = QueryRequestSchema.parse(parsed);
      const target = request.tx === undefined ? await store() : transactions.get(request.tx)?.tx;
      if (!target) return { status: 409, body: { error: 'The transaction is over (timed out or finished).' } };
      return { status: 200, body: await target.query(request.text, request.params) };
    }
    if (path === '/status') return { status: 200, body: { rows: [{ open: isOpen() }] } };
    if (path === '/begin') return { status: 200, body: { tx: await begin() } };
    if (path === '/commit' || path === '/rollback') {
      const { tx } = TxRequestSchema.parse(parsed);
      const open = transactions.get(tx);
      if (!open) return { status: 409, body: { error: 'The transaction is over (timed out or finished).' } };
      open.finish(path === '/commit');
      await open.done;
      return { status: 200, body: { rows: [] } };
    }
    return { status: 404, body: { error: 'Not found' } };
  };
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      res.end(encode(body));
    };
    if (req.method !== 'POST' || req.headers.authorization !== `Bearer ${token}`) {
      send(403, { error: 'Forbidden' });
      return;
    }
    answer(req).then(
      ({ status, body }) => send(status, body),
      (error: unknown) => send(500, { error: error instanceof Error ? error.message : String(error) }),
    );
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const open of transactions.values()) open.finish(false);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const linkAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export interface LinkedDb extends Db {
  /** Whether the primary has opened its store (reads need not open it to find nothing was kept). */
  isOpen: () => Promise<boolean>;
}

const StatusSchema = z.object({ rows: z.tuple([z.object({ open: z.boolean() })]) });

/** The worker's side: a Db whose every query runs in the primary. */
export function linkedStore(origin: string, token: string): LinkedDb {
  const { hostname, port } = new URL(origin);
  const post = (path: string, body: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const text = encode(body);
      const req = http.request(
        { host: hostname, port, method: 'POST', path, agent: linkAgent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const answer = decode(Buffer.concat(chunks).toString('utf8'));
            if (res.statusCode === 200) resolve(answer);
            else reject(new Error(ErrorSchema.safeParse(answer).data?.error ?? `The store link answered ${res.statusCode ?? 0}.`));
          });
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  const on = (tx: string | undefined): Queryable => ({
    async query(text: string, params?: readonly SqlValue[]) {
      const { rows } = RowsSchema.parse(await post('/query', { text, ...(params ? { params } : {}), ...(tx ? { tx } : {}) }));
      // The primary's rows, typed by the table module that asked (as the drivers' are).
      return { rows: rows as never[] };
    },
  });
  let open = false;
  return {
    ...on(undefined),
    async isOpen() {
      open ||= StatusSchema.parse(await post('/status', {})).rows[0].open;
      return open;
    },
    async transaction(fn) {
      const { tx } = TxSchema.parse(await post('/begin', {}));
      try {
        const value = await fn(on(tx));
        await post('/commit', { tx });
        return value;
      } catch (error) {
        await post('/rollback', { tx }).catch(() => undefined);
        throw error;
      }
    },
    close: () => Promise.resolve(),
  };
}
