// Graceful shutdown (docs/deploying.md): on SIGTERM (or SIGINT) the server answers /healthz and /readyz with
// 503 at once, so a load balancer stops sending, but goes on accepting and answering connections (each answer
// with `Connection: close`) for a grace period (SHUTDOWN_GRACE_MS, longer than a balancer's check interval: until
// the balancer has polled, it still sends here, and a refused connection is a 502). Then it stops accepting, lets
// the requests in flight finish, and exits once no connection is left (or at the deadline). A kept-alive connection
// with nothing in flight is not cut at once: its client may be sending its next request that very moment,
// which a cut would reset. It gets IDLE_GRACE_MS: a request that comes is answered, with `Connection: close`,
// and one that does not come leaves the connection to be closed then. No idle connection holds the process
// longer: a browser keeps idle keep-alive sockets and opens spare ones it has sent nothing on yet (Node's
// closeIdleConnections leaves those), and dev's HMR WebSocket is upgraded out of Node's own bookkeeping, so
// the drain tracks every socket itself.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import net, { type Socket } from 'node:net';
import type { Log } from '../log/logger';

/** How long a draining server still accepts connections: a few seconds longer than a balancer's usual 5 s check interval. */
export const SHUTDOWN_GRACE_MS = 8_000;
/** How long the requests in flight may take once it stops accepting, before they are cut off. */
export const SHUTDOWN_DEADLINE_MS = 20_000;
/** How long a kept-alive connection with nothing in flight is left open once the drain begins, for a request already on its way. */
export const IDLE_GRACE_MS = 1_000;

export interface DrainResult {
  /** True when the deadline cut requests off. */
  forced: boolean;
  /** What was still in flight when the drain began ("GET /api/v2/projects"), if anything. */
  waitedFor: string[];
}

export interface DrainTimes {
  /** How long it goes on accepting connections first (0: stops at once; a signal's drain: SHUTDOWN_GRACE_MS). */
  acceptMs?: number;
  /** Then how long the requests in flight may take (SHUTDOWN_DEADLINE_MS). */
  deadlineMs?: number;
}

export interface Drain {
  readonly draining: boolean;
  /** Resolves once every connection has closed; the same promise on every call. */
  start: (times?: DrainTimes) => Promise<DrainResult>;
}

export interface DrainOptions {
  /** Where the one line about requests in flight goes (nothing is said when none is). */
  log?: Log;
}

/** Method and path, never the query (it may carry search text). */
function describe(req: IncomingMessage): string {
  return `${req.method ?? 'GET'} ${(req.url ?? '/').split('?')[0] ?? '/'}`;
}

function list(requests: Iterable<string>): string {
  const all = [...requests];
  const shown = all.slice(0, 5).join(', ');
  return all.length > 5 ? `${shown} and ${all.length - 5} more` : shown;
}

const drains = new WeakMap<Server, Drain>();

/** Tracks the server's connections from now on (call it before listening) and drains them on `start`. */
export function createDrain(server: Server, { log = () => undefined }: DrainOptions = {}): Drain {
  // Each socket with the number of its responses not yet finished (0: idle, never used, or upgraded).
  const sockets = new Map<Socket, number>();
  // Described only when shutdown names them: not on every request.
  const inFlight = new Map<ServerResponse, IncomingMessage>();
  let draining = false;
  // Past the grace period: no connection is accepted any more.
  let closing = false;
  let done: Promise<DrainResult> | undefined;

  /** Closes a socket with nothing in flight: at once if nothing is being written, else once its answer is out. */
  const closeIfIdle = (socket: Socket) => {
    if ((sockets.get(socket) ?? 0) > 0) return;
    if (socket.writableLength === 0) socket.destroy();
    else socket.destroySoon();
  };

  server.on('connection', (socket: Socket) => {
    sockets.set(socket, 0);
    socket.once('close', () => sockets.delete(socket));
    if (closing) socket.destroy();
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    sockets.set(socket, (sockets.get(socket) ?? 0) + 1);
    inFlight.set(res, req);
    if (draining) res.setHeader('Connection', 'close');
    const finished = () => {
      if (!inFlight.delete(res)) return;
      if (sockets.has(socket)) sockets.set(socket, Math.max(0, (sockets.get(socket) ?? 1) - 1));
      if (draining) setImmediate(() => closeIfIdle(socket));
    };
    res.once('finish', finished);
    res.once('close', finished);
  });

  const close = (graceMs: number) =>
    new Promise<DrainResult>((resolve) => {
      closing = true;
      const waitedFor = [...inFlight.values()].map(describe);
      const deadline = setTimeout(() => {
        log(`Shutdown: cut off after ${Math.round(graceMs / 1000)} s: ${list([...inFlight.values()].map(describe))}`, {
          event: 'shutdown.cut_off',
          level: 'warn',
        });
        for (const socket of sockets.keys()) socket.destroy();
        resolve({ forced: true, waitedFor });
      }, graceMs);
      deadline.unref();
      // net.Server's close, not http.Server's: that one also cuts every idle kept-alive connection at once
      // (Node 19 and later), resetting a request on its way; they get IDLE_GRACE_MS below instead.
      net.Server.prototype.close.call(server, () => {
        clearTimeout(deadline);
        resolve({ forced: false, waitedFor });
      });
      for (const res of inFlight.keys()) if (!res.headersSent) res.setHeader('Connection', 'close');
      const idleGrace = setTimeout(() => {
        for (const socket of sockets.keys()) closeIfIdle(socket);
      }, IDLE_GRACE_MS);
      idleGrace.unref();
      if (waitedFor.length > 0)
        log(
          `Shutdown: waiting for ${waitedFor.length} request${waitedFor.length === 1 ? '' : 's'} in flight (at most ${Math.round(graceMs / 1000)} s): ${list(waitedFor)}`,
          { event: 'shutdown.waiting', requests: waitedFor.length },
        );
    });
  const drain: Drain = {
    get draining() {
      return draining;
    },
    start({ acceptMs = 0, deadlineMs = SHUTDOWN_DEADLINE_MS } = {}) {
      done ??= (async () => {
        draining = true;
        if (acceptMs > 0) {
          log(`Shutdown: /readyz answers 503; still answering for ${Math.round(acceptMs / 100) / 10} s while balancers move away`, {
            event: 'shutdown.draining',
            grace_ms: acceptMs,
          });
          for (const res of inFlight.keys()) if (!res.headersSent) res.setHeader('Connection', 'close');
          await new Promise((resolve) => setTimeout(resolve, acceptMs));
        }
        return close(deadlineMs);
      })();
      return done;
    },
  };
  drains.set(server, drain);
  return drain;
}

/** Drains a server (with the Drain made for it, or one made now: then only connections from now on are known). */
export function drain(server: Server, { log, ...times }: DrainOptions & DrainTimes = {}): Promise<DrainResult> {
  return (drains.get(server) ?? createDrain(server, log ? { log } : {})).start(times);
}
