// Graceful shutdown: on SIGTERM (or SIGINT) the server stops accepting connections, answers /healthz
// with 503 so a load balancer stops sending, lets the requests in flight finish, closes idle
// keep-alive connections as they fall idle, and exits once none is left (or at the deadline).
import type { Server } from 'node:http';

export const SHUTDOWN_GRACE_MS = 20_000;

export interface Drain {
  readonly draining: boolean;
  /** Resolves once every connection has closed; `forced` when the deadline cut some off. */
  start: (graceMs?: number) => Promise<{ forced: boolean }>;
}

export function createDrain(server: Server): Drain {
  let draining = false;
  let done: Promise<{ forced: boolean }> | undefined;
  // A response finished while draining leaves its connection idle: close it rather than wait for the keep-alive timeout.
  server.on('request', (_req, res) => {
    if (draining) res.setHeader('Connection', 'close');
    res.once('finish', () => {
      if (draining) setImmediate(() => server.closeIdleConnections());
    });
  });
  return {
    get draining() {
      return draining;
    },
    start(graceMs = SHUTDOWN_GRACE_MS) {
      draining = true;
      done ??= new Promise((resolve) => {
        const deadline = setTimeout(() => {
          server.closeAllConnections();
          resolve({ forced: true });
        }, graceMs);
        deadline.unref();
        server.close(() => {
          clearTimeout(deadline);
          resolve({ forced: false });
        });
        server.closeIdleConnections();
      });
      return done;
    },
  };
}
