// What the console's own server answers with when it is not the API's answer passed on: one error body,
// `{code, message, request_id}` (the platform's own shape, so the page reads both alike), with the request
// id also in `x-neon-ret-request-id`; one 405 (with `Allow`); JSON with its length. The request id is the
// request's own (server/log/request-context.ts: the one in X-Request-ID and in its log line), so the id an
// error on a page names finds its line in the log.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { currentRequestId } from '../log/request-context';

export interface ErrorBody {
  code: string;
  message: string;
  request_id: string;
}

export const REQUEST_ID_HEADER = 'x-neon-ret-request-id';

function errorBody(message: string, code: string, requestId: string = currentRequestId() ?? randomUUID()): ErrorBody {
  return { code, message, request_id: requestId };
}

/** The error as a Fetch Response (for what speaks Fetch: the simulator's bridge, the proxy's own errors, the key check). */
export function jsonErrorResponse(status: number, message: string, code = ''): Response {
  const body = errorBody(message, code);
  return Response.json(body, { status, headers: { [REQUEST_ID_HEADER]: body.request_id } });
}

/**
 * An answer as data, for a route whose answer goes either to a socket (sendAnswer) or to an in-process caller
 * as a Fetch Response (server rendering's transport: new Response(answer.body, answer)).
 */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function jsonAnswer(status: number, body: unknown): Answer {
  return { status, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

/** The error body as an Answer (`requestId`: the API's, when this passes on its refusal). */
export function errorAnswer(status: number, message: string, code = '', requestId?: string): Answer {
  const body = errorBody(message, code, requestId);
  const answer = jsonAnswer(status, body);
  answer.headers[REQUEST_ID_HEADER] = body.request_id;
  return answer;
}

/** Writes an Answer with its length. */
export function sendAnswer(res: ServerResponse, answer: Answer): void {
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader('Content-Length', Buffer.byteLength(answer.body));
  res.end(answer.body);
}

/** A JSON answer with its length. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** Writes the error body (`requestId`: the API's, when this passes on its refusal); a response whose head went out already can only be cut off. */
export function sendError(res: ServerResponse, status: number, message: string, code = '', requestId?: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = errorBody(message, code, requestId);
  res.setHeader(REQUEST_ID_HEADER, body.request_id);
  sendJson(res, status, body);
}

const METHOD_NOT_ALLOWED_CODE = 'method_not_allowed';
const notAllowed = (method: string, allowed: readonly string[]) => `Method ${method} is not allowed here (${allowed.join(', ')}).`;

/** The one 405: which methods the path takes, in `Allow` and in words. */
export function sendMethodNotAllowed(res: ServerResponse, method: string, allowed: readonly string[]): void {
  res.setHeader('Allow', allowed.join(', '));
  sendError(res, 405, notAllowed(method, allowed), METHOD_NOT_ALLOWED_CODE);
}

/** The same 405 as a Fetch Response. */
export function methodNotAllowedResponse(method: string, allowed: readonly string[]): Response {
  const response = jsonErrorResponse(405, notAllowed(method, allowed), METHOD_NOT_ALLOWED_CODE);
  response.headers.set('Allow', allowed.join(', '));
  return response;
}
