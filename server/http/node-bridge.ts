// Bridges Node's http server and the Fetch API that the API backends speak (the MSW handlers of the
// simulator, the forwarding proxy's fetch), so one description answers real sockets, the sign-in check
// and, later, server rendering, all in process.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getResponse, type RequestHandler } from 'msw';
import { routeIndex } from '../proxy/simulator-fetch';

/** The mount point of the control API on the console's own origin. */
export const API_PREFIX = '/api/v2';

/** Answers one request that is known to be under {@link API_PREFIX}. */
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

export const MAX_BODY_BYTES = 1024 * 1024;
/** What is read and dropped after a body passed its limit, so the client still hears the 413; past it, the connection is cut. */
const DISCARD_BYTES = 8 * 1024 * 1024;

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Request body is too large (more than ${limit >= 1024 * 1024 ? `${limit / (1024 * 1024)} MiB` : `${limit / 1024} KiB`}).`);
    this.name = 'BodyTooLargeError';
  }
}

/** The simulator's fault plan control route (sim/faults.ts): never under the API prefix, never forwarded. */
export const FAULTS_CONTROL_PATH = '/__sim/faults';

function isUnder(url: string | undefined, prefix: string): boolean {
  if (url === undefined || !url.startsWith(prefix)) return false;
  const next = url.charAt(prefix.length);
  return next === '' || next === '/' || next === '?';
}

export function isFaultControlPath(url: string | undefined): boolean {
  return isUnder(url, FAULTS_CONTROL_PATH);
}

export function isApiPath(url: string | undefined): boolean {
  return isUnder(url, API_PREFIX);
}

/** The platform's error body (`{code, message, request_id}`) with its request id header. */
export function jsonErrorResponse(status: number, message: string, code = ''): Response {
  const requestId = randomUUID();
  return Response.json({ code, message, request_id: requestId }, { status, headers: { 'x-neon-ret-request-id': requestId } });
}

/** Writes the platform's error body (`{code, message, request_id}`) with its request id header. */
/** A JSON answer with its length (the console's own routes: session, archive, notifications). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function sendJsonError(res: ServerResponse, status: number, message: string, code = ''): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const requestId = randomUUID();
  const body = JSON.stringify({ code, message, request_id: requestId });
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('x-neon-ret-request-id', requestId);
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
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
 * Reads the whole request body (the API's bodies are small JSON documents); none for GET/HEAD. Past
 * `limit` (declared or sent) it rejects with {@link BodyTooLargeError} and drops the rest unread.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer | undefined> {
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
  const body = await readBody(req);
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
  await sendChunks(res, () => writeHead(res, response), chunks, () => void reader.cancel().catch(() => undefined));
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
    if (!sending && error instanceof AnswerError) sendJsonError(res, error.status, error.message, error.code);
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
    if (error instanceof BodyTooLargeError) sendJsonError(res, 413, error.message);
    else sendJsonError(res, 500, 'Internal error while answering the request.');
  }
}

/** Serves an {@link ApiFetch} as a Node handler, as it is: what the caller sent is what it gets. */
export function nodeHandler(fetchApi: ApiFetch): NodeHandler {
  return (req, res) => answerSafely(res, async () => sendFetchResponse(res, await fetchApi(await readApiCall(req, res)), req.method));
}

/** The simulator's MSW handlers as an {@link ApiFetch}; a request no handler takes gets the platform's 404. */
export function createSimulatorFetch(handlers: RequestHandler[]): ApiFetch {
  const routes = routeIndex(handlers);
  return async ({ method, target, headers, body, signal }) => {
    // The origin is irrelevant to the handlers (they match `*/api/v2/...`); never trust the Host header for it.
    const url = new URL(target, 'http://localhost');
    const request = new Request(url, { method, headers, body: body ?? null, ...(signal ? { signal } : {}) });
    const response = await getResponse(routes.for(request.method, url.pathname), request);
    return response ?? jsonErrorResponse(404, `no route for ${request.method} ${url.pathname}`);
  };
}

/** Serves MSW handlers on a Node server; a request no handler takes gets the platform's 404. */
export function createSimulatorHandler(handlers: RequestHandler[]): NodeHandler {
  return nodeHandler(createSimulatorFetch(handlers));
}
