// The live room's routes (docs/live.md): GET /events, the session's Server-Sent Events stream, and
// POST /events/watch, what a page has open (the follower reads it: server/live/follower.ts). The stream says
// `retry:` first, then each change of a project the session may read as `event: operation` with `id:` its
// sequence in the store's feed, a `: ping` every PING_MS, and replays from `Last-Event-ID` (or `?after=`) what
// a reconnect missed, or `event: reset` when that was too much or too old. It is never compressed nor buffered
// (`Cache-Control: no-cache, no-transform`, `X-Accel-Buffering: no`), at most MAX_STREAMS_PER_SESSION per
// session on an instance, and each one ends when the instance drains (the page reconnects elsewhere).
import type { IncomingMessage } from 'node:http';
import * as z from 'zod/mini';
import { sendError, sendJson } from '../http/answers';
import { BodyTooLargeError, MAX_FORM_BODY_BYTES, readBody } from '../http/body';
import type { Seal } from '../seal/seal';
import { sessionRoute, type Route, type SessionContext } from '../session/route-guard';
import type { Sessions } from '../session/sessions';
import type { ChangeRow } from '../store/live-changes';
import { putWatches, type WatchRow } from '../store/live-changes';
import type { FeedBatch, LiveFeed } from './feed';
import type { Readable } from './readable';

export const EVENTS_PATH = '/events';
export const WATCH_PATH = '/events/watch';
/** A comment line this often keeps balancers and proxies from closing an idle stream (docs/live.md, "Balancers"). */
export const PING_MS = 15_000;
/** How soon the browser reconnects (the page adds its own jitter). */
export const RETRY_MS = 3_000;
/** Streams one session may hold open on one instance (one per browser is the page's rule; a few tabs' worth of slack). */
export const MAX_STREAMS_PER_SESSION = 4;
/** How long a watch is kept: the page says it again every WATCH_REPEAT_MS (src/features/live). */
export const WATCH_TTL_MS = 45_000;
/** The most targets one watch request names. */
export const MAX_WATCHES = 50;

const WatchBodySchema = z.object({
  watches: z.array(z.object({ project_id: z.string().check(z.minLength(1), z.maxLength(200)), operation_id: z.optional(z.string().check(z.maxLength(200))) })),
});

export interface LiveRoutesOptions {
  feed: LiveFeed;
  sessions: Sessions;
  readable: Readable;
  seal: Seal;
  draining: () => boolean;
  /** Open streams, +1 / -1 (metrics). */
  counted?: (delta: 1 | -1) => void;
  pingMs?: number;
  now?: () => number;
}

export interface LiveRoom {
  routes: Route[];
  /** Ends every stream (the drain): each page reconnects, to another instance if this one is going. */
  close: () => void;
}

/** The sequence a reconnect asks to start after: Last-Event-ID, else `?after=`; undefined when neither is a sequence. */
export function resumeAfter(req: IncomingMessage): number | undefined {
  const header = req.headers['last-event-id'];
  const fromQuery = new URL(req.url ?? '/', 'http://x').searchParams.get('after');
  const value = typeof header === 'string' && header !== '' ? header : fromQuery;
  return value !== null && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

/** One SSE event, as the wire has it. */
export function sseEvent(event: string, id: number, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** What `event: operation` carries: the operation as the API described it (the page's wire shape), its project, id and status first. */
export function operationData(row: ChangeRow): Record<string, unknown> {
  const body = typeof row.operation === 'object' && row.operation !== null ? (row.operation as Record<string, unknown>) : {};
  return { ...body, project_id: row.project_id, id: row.operation_id, status: row.status };
}

export function liveRoutes(options: LiveRoutesOptions): LiveRoom {
  const { feed, sessions, readable, seal, pingMs = PING_MS, now = Date.now } = options;
  const open = new Set<() => void>();
  const perSession = new Map<string, number>();

  const stream = async (ctx: SessionContext) => {
    const { req, res, session } = ctx;
    if (options.draining()) {
      sendError(res, 503, 'This instance is shutting down; connect again.', 'draining');
      return;
    }
    const held = perSession.get(session.sid) ?? 0;
    if (held >= MAX_STREAMS_PER_SESSION) {
      sendError(res, 429, `At most ${MAX_STREAMS_PER_SESSION} live streams per session.`, 'too_many_streams');
      return;
    }
    const after = resumeAfter(req);
    // The store first: a stream it cannot start answers as any route the store fails (503), before the head goes out.
    const start = after === undefined ? { kind: 'fresh' as const, last: await feed.last() } : await feed.replay(after);
    perSession.set(session.sid, held + 1);
    options.counted?.(1);

    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    req.socket.setNoDelay(true);

    let ended = false;
    let cursor = start.last;
    let queue: Promise<void> = Promise.resolve();
    const write = (text: string) => {
      if (!ended) res.write(text);
    };

    let end: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => {
      end = () => {
        if (ended) return;
        ended = true;
        clearInterval(ping);
        unsubscribe();
        open.delete(end);
        const left = (perSession.get(session.sid) ?? 1) - 1;
        if (left > 0) perSession.set(session.sid, left);
        else perSession.delete(session.sid);
        options.counted?.(-1);
        if (!res.writableEnded) res.end();
        resolve();
      };
    });

    /** Passes on the rows past the cursor, in order, each only if the session may read its project. */
    const pass = (rows: readonly ChangeRow[]) =>
      (queue = queue.then(async () => {
        for (const row of rows) {
          if (ended || row.seq <= cursor) continue;
          const may = await readable(session, row.project_id).catch(() => 'no' as const);
          if (may === 'revoked') {
            end();
            return;
          }
          cursor = row.seq;
          if (may === 'yes') write(sseEvent('operation', row.seq, operationData(row)));
        }
      }));
    const take = (batch: FeedBatch) => {
      if (batch.kind === 'reset') {
        queue = queue.then(() => {
          if (batch.last <= cursor) return;
          cursor = batch.last;
          write(sseEvent('reset', cursor, {}));
        });
        return;
      }
      void pass(batch.rows);
    };
    const unsubscribe = feed.subscribe(take);
    open.add(end);
    req.on('close', end);
    res.on('close', end);

    write(`retry: ${RETRY_MS}\n\n`);
    if (start.kind === 'reset') write(sseEvent('reset', start.last, {}));
    else if (start.kind === 'fresh') write(sseEvent('ready', start.last, {}));
    else {
      cursor = after ?? 0;
      void pass(start.rows);
      if (start.rows.length === 0) {
        cursor = Math.max(cursor, start.last);
        write(sseEvent('ready', cursor, {}));
      }
    }
    const ping = setInterval(() => {
      // A session signed out (or expired) since the stream opened hears nothing more.
      if (sessions.read(req).state !== 'open') {
        end();
        return;
      }
      write(': ping\n\n');
    }, pingMs);
    ping.unref();
    await finished;
  };

  const watch = async (ctx: SessionContext) => {
    const { req, res, session } = ctx;
    let raw: Buffer | undefined;
    try {
      raw = await readBody(req, MAX_FORM_BODY_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLargeError) throw error;
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw?.toString('utf8') ?? '');
    } catch {
      json = undefined;
    }
    const parsed = WatchBodySchema.safeParse(json);
    if (!parsed.success || parsed.data.watches.length > MAX_WATCHES) {
      sendError(res, 400, `The body is {"watches":[{"project_id","operation_id"?}]}, at most ${MAX_WATCHES} of them.`, 'invalid_watches');
      return;
    }
    const fingerprint = seal.fingerprint(session.key);
    const sealed = seal.seal('watch-key', session.key);
    const rows: WatchRow[] = [];
    const seen = new Set<string>();
    for (const w of parsed.data.watches) {
      const name = `${w.project_id}/${w.operation_id ?? ''}`;
      if (seen.has(name)) continue;
      seen.add(name);
      // Only what the session's key may read is followed with it.
      const may = await readable(session, w.project_id);
      if (may === 'revoked') {
        ctx.apiAnswered(401);
        sendError(res, 401, 'The API no longer accepts this session’s key.', 'revoked');
        return;
      }
      if (may === 'yes') rows.push({ project_id: w.project_id, operation_id: w.operation_id ?? '', key_fingerprint: fingerprint, sealed_key: sealed });
    }
    await putWatches(await feed.db(), rows, new Date(now() + WATCH_TTL_MS));
    sendJson(res, 200, { watching: rows.length, ttl_ms: WATCH_TTL_MS });
  };

  return {
    routes: [
      // Team sign-in (docs/team.md): whoever reads may hear of changes and say what their page shows; telling the
      // server what is on a page changes nothing a person did, so it is no row of the audit trail.
      sessionRoute({ method: 'GET', url: EVENTS_PATH, config: { needs: 'session', role: 'viewer' }, handler: stream }),
      sessionRoute({ method: 'POST', url: WATCH_PATH, config: { needs: 'session', role: 'viewer', unaudited: true }, handler: watch }),
    ],
    close: () => {
      for (const end of [...open]) end();
    },
  };
}
