// Bridges Node's http server and the Fetch API that the API backends speak (the MSW handlers of the
// simulator, the forwarding proxy's fetch), so one description answers real sockets, the sign-in check
// and server rendering, all in process.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError } from './answers';
import { BodyTooLargeError, MAX_API_BODY_BYTES, readBody } from './body';

/** Answers one request (a route of the console, or `/api/v2` as a whole). */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * One call to the control API: the raw request target (`/api/v2/...` with its query, never parsed into
 * a URL first, so the proxy can refuse `..` and friends before anything normalises them).
 */
export interface ApiCall {
  method: string;
  target: string;
  headers: Headers;
  body?: Uint8Array<ArrayBuffer> | undefined;
  signal?: AbortSignal | undefined;
}

/** What answers `/api/v2`: a `Response.error()` means "no answer at all" (the socket is dropped). */
export type ApiFetch = (call: ApiCall) => Promise<Response>;

/** The request's headers as Fetch headers (pseudo-headers dropped). */
export function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

/** Reads an incoming request as an {@link ApiCall}; its signal aborts when the client goes away. */
export async function readApiCall(req: IncomingMessage, res: ServerResponse): Promise<ApiCall> {
  const body = await readBody(req, MAX_API_BODY_BYTES);
  const clientGone = new AbortController();
  res.once('close', () => clientGone.abort());
  return { method: req.method ?? 'GET', target: req.url ?? '/', headers: headersOf(req), body: body && new Uint8Array(body), signal: clientGone.signal };
}

/**
 * A body that broke off (the proxy's deadline, its size cap, an API that hung up): what the client gets
 * instead, if nothing of the answer has gone out yet; otherwise the connection is cut.
 */
export class AnswerError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code = '',
  ) {
    super(message);
    this.name = 'AnswerError';
  }
}

/** Held before the status goes out: an answer this small leaves whole with its length, or as an AnswerError's error body. */
const HELD_BYTES = 64 * 1024;

function writeHead(res: ServerResponse, response: Response): void {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) {
    if (name === 'set-cookie') continue;
    res.setHeader(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.appendHeader('set-cookie', cookies);
}

/** Writes a chunk and waits while the client is slower than the source; false once the client is gone. */
function write(res: ServerResponse, chunk: Uint8Array): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  if (res.write(chunk)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (open: boolean) => () => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(open);
    };
    const onDrain = done(true);
    const onClose = done(false);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/** Sends a Fetch Response on a Node response, its body streamed as the client takes it (never held whole). */
export async function sendFetchResponse(res: ServerResponse, response: Response, method?: string): Promise<void> {
  // `Response.error()` (a handler's HttpResponse.error(), e.g. an injected dropped connection): no answer at all.
  if (response.type === 'error') {
    res.destroy();
    return;
  }
  if (method === 'HEAD' || response.body === null) {
    await response.body?.cancel();
    writeHead(res, response);
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const chunks: AsyncIterator<Uint8Array, undefined> = {
    next: async () => {
      const { done, value } = await reader.read();
      return done ? { done: true, value: undefined } : { done: false, value };
    },
  };
  await sendChunks(
    res,
    () => writeHead(res, response),
    chunks,
    () => void reader.cancel().catch(() => undefined),
  );
}

/**
 * Sends a body as it comes (`chunks`), the head written by `head` once it is known how: an answer under
 * HELD_BYTES leaves whole with its length, or, if it breaks with an AnswerError before then, as that
 * error's JSON body; a longer one streams as the client takes it. `cancel`: the client went away.
 */
export async function sendChunks(res: ServerResponse, head: () => void, chunks: AsyncIterator<Uint8Array, undefined>, cancel: () => void): Promise<void> {
  res.once('close', cancel);
  const held: Uint8Array[] = [];
  let heldBytes = 0;
  let sending = false;
  try {
    for (;;) {
      const { done, value } = await chunks.next();
      if (done) break;
      if (sending) {
        if (!(await write(res, value))) return;
        continue;
      }
      held.push(value);
      heldBytes += value.byteLength;
      if (heldBytes < HELD_BYTES) continue;
      head();
      sending = true;
      for (const chunk of held.splice(0)) if (!(await write(res, chunk))) return;
    }
  } catch (error) {
    if (!sending && error instanceof AnswerError) sendError(res, error.status, error.message, error.code);
    else res.destroy();
    return;
  } finally {
    res.off('close', cancel);
  }
  if (res.destroyed) return;
  if (sending) {
    res.end();
    return;
  }
  head();
  res.end(held.length === 1 ? held[0] : Buffer.concat(held));
}

/** Runs a handler, turning an oversized body into 413 and any unexpected failure into a JSON 500. */
export async function answerSafely(res: ServerResponse, answer: () => Promise<void>): Promise<void> {
  try {
    await answer();
  } catch (error) {
    if (error instanceof BodyTooLargeError) sendError(res, 413, error.message, 'body_too_large');
    else sendError(res, 500, 'Internal error while answering the request.');
  }
}

/** Serves an {@link ApiFetch} as a Node handler, as it is: what the caller sent is what it gets. */
export function nodeHandler(fetchApi: ApiFetch): NodeHandler {
  return (req, res) => answerSafely(res, async () => sendFetchResponse(res, await fetchApi(await readApiCall(req, res)), req.method));
}
