// Request bodies: read whole (the console's and the API's bodies are small JSON documents or a form),
// with one limit per kind of body, and what passes a limit dropped unread so the 413 still reaches a
// client that is still sending.
import type { IncomingMessage } from 'node:http';

/** Bodies forwarded to the API (`/api/v2`): far above any JSON the platform takes. */
export const MAX_API_BODY_BYTES = 1024 * 1024;
/** The console's own routes (sign-in, the archive, notifications): a key, a URL and a few fields. */
export const MAX_FORM_BODY_BYTES = 16 * 1024;
/** What is read and dropped after a body passed its limit, so the client still hears the 413; past it, the connection is cut. */
const DISCARD_BYTES = 8 * 1024 * 1024;

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Request body is too large (more than ${limit >= 1024 * 1024 ? `${limit / (1024 * 1024)} MiB` : `${limit / 1024} KiB`}).`);
    this.name = 'BodyTooLargeError';
  }
}

/** Drops the rest of a refused body, so the answer reaches a client still sending it (a cut socket would lose it). */
function discardRest(req: IncomingMessage): void {
  let dropped = 0;
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DISCARD_BYTES) req.destroy();
  });
  req.resume();
}

/**
 * Reads the whole request body; none for GET/HEAD. Past `limit` (declared or sent) it rejects with
 * {@link BodyTooLargeError} and drops the rest unread.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  // Read already (its 'end' has passed and would never come again): nothing is left.
  if (req.method === 'GET' || req.method === 'HEAD' || req.readableEnded) return Promise.resolve(undefined);
  if (req.destroyed) return Promise.reject(new Error('The client closed the connection before its request body had arrived.'));
  if (Number(req.headers['content-length'] ?? 0) > limit) {
    discardRest(req);
    return Promise.reject(new BodyTooLargeError(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      discardRest(req);
      reject(new BodyTooLargeError(limit));
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length > 0 ? Buffer.concat(chunks) : undefined);
    };
    const onClose = () => {
      stop();
      reject(new Error('The client closed the connection before its request body had arrived.'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
  });
}

/**
 * Reads and drops what is left of a request's body before it is refused, so the answer reaches a client
 * still sending (answering first makes Node close the connection under it); what passes the limit is dropped.
 */
export async function discardBody(req: IncomingMessage): Promise<void> {
  await readBody(req, MAX_FORM_BODY_BYTES).catch(() => undefined);
}
