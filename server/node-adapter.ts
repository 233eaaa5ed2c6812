// Bridges Node's http server (what Vite's dev and preview servers hand to middlewares) and the Fetch
// API the MSW handlers speak, so the simulator's one HTTP description also answers real sockets.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getResponse, type RequestHandler } from 'msw';

/** The mount point of the control API on the console's own origin. */
export const API_PREFIX = '/api/v2';

/** Answers one request that is known to be under {@link API_PREFIX}. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const MAX_BODY_BYTES = 1024 * 1024;

class BodyTooLargeError extends Error {}

/** The simulator's fault plan control route (sim/faults.ts): never under the API prefix, never forwarded. */
export const FAULTS_CONTROL_PATH = '/__sim/faults';

export function isFaultControlPath(url: string | undefined): boolean {
  if (url === undefined || !url.startsWith(FAULTS_CONTROL_PATH)) return false;
  const next = url.charAt(FAULTS_CONTROL_PATH.length);
  return next === '' || next === '/' || next === '?';
}

export function isApiPath(url: string | undefined): boolean {
  if (url === undefined || !url.startsWith(API_PREFIX)) return false;
  const next = url.charAt(API_PREFIX.length);
  return next === '' || next === '/' || next === '?';
}

/** Writes the platform's error body (`{code, message, request_id}`) with its request id header. */
export function sendJsonError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const requestId = randomUUID();
  const body = JSON.stringify({ code: '', message, request_id: requestId });
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('x-neon-ret-request-id', requestId);
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/** Reads the whole request body (the API's bodies are small JSON documents); none for GET/HEAD. */
export async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  if (req.method === 'GET' || req.method === 'HEAD') return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError();
    chunks.push(chunk);
  }
  return chunks.length > 0 ? Buffer.concat(chunks) : undefined;
}

export function toFetchRequest(req: IncomingMessage, body: Buffer | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  // The origin is irrelevant to the handlers (they match `*/api/v2/...`); never trust the Host header for it.
  return new Request(new URL(req.url ?? '/', 'http://localhost'), {
    method: req.method ?? 'GET',
    headers,
    body: body ? new Uint8Array(body) : null,
  });
}

export async function sendFetchResponse(res: ServerResponse, response: Response, method?: string): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) res.setHeader(name, value);
  const body = Buffer.from(await response.arrayBuffer());
  res.end(method === 'HEAD' ? undefined : body);
}

/** Runs a handler, turning an oversized body into 413 and any unexpected failure into a JSON 500. */
export async function answerSafely(res: ServerResponse, answer: () => Promise<void>): Promise<void> {
  try {
    await answer();
  } catch (error) {
    if (error instanceof BodyTooLargeError) sendJsonError(res, 413, 'Request body is too large.');
    else sendJsonError(res, 500, 'Internal error while answering the request.');
  }
}

/** Serves MSW handlers on a Node server; a request no handler takes gets the platform's 404. */
export function createSimulatorHandler(handlers: RequestHandler[]): NodeHandler {
  return (req, res) =>
    answerSafely(res, async () => {
      const request = toFetchRequest(req, await readBody(req));
      const response = await getResponse(handlers, request);
      // `Response.error()` (a handler's HttpResponse.error(), e.g. an injected dropped connection): no answer at all.
      if (response?.type === 'error') res.destroy();
      else if (response) await sendFetchResponse(res, response, req.method);
      else sendJsonError(res, 404, `no route for ${request.method} ${new URL(request.url).pathname}`);
    });
}
