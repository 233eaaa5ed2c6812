// With several worker processes, the simulator (one simulated world) lives in the primary alone and the
// workers reach it over loopback: this is both ends of that link. The primary serves the simulator's
// /api/v2 and its fault control on 127.0.0.1 (a random port); a worker's ApiBackend forwards to it as it
// is (every header but hop-by-hop ones, every answer header, and a dropped connection stays dropped), so
// a worker behaves exactly as the single process that holds the simulator itself.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiBackend } from './api-backend';
import { API_PREFIX, isApiPath, isFaultControlPath, nodeHandler, readBody, sendJsonError, FAULTS_CONTROL_PATH, type ApiFetch, type NodeHandler } from './node-adapter';

/** The environment variable that hands a worker the primary's simulator address. */
export const SIMULATOR_LINK_ENV = 'OPS_CONSOLE_SIMULATOR_URL';

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'te', 'trailer', 'content-length', 'cookie', 'proxy-connection']);
const NOT_PASSED_BACK = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'date']);

/** The primary's side: the simulator's handlers and fault control on a loopback port; resolves with its origin. */
export async function serveSimulatorLink(backend: ApiBackend): Promise<{ origin: string; close: () => Promise<void> }> {
  const api = nodeHandler(backend.fetch);
  const answer = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (isFaultControlPath(req.url) && backend.faultControl) await backend.faultControl(req, res);
    else if (isApiPath(req.url)) await api(req, res);
    else sendJsonError(res, 404, 'Not found');
  };
  const server = http.createServer((req, res) => {
    answer(req, res).catch(() => sendJsonError(res, 500, 'Internal error in the simulator.'));
  });
  // Renders and reads from every worker come here: keep the connections open between them.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The worker's side: /api/v2 calls sent to the primary's simulator as they are. */
export function linkedSimulatorFetch(origin: string): ApiFetch {
  return async ({ method, target, headers, body, signal }) => {
    const sent = new Headers();
    for (const [name, value] of headers) if (!HOP_BY_HOP.has(name)) sent.append(name, value);
    let answer: Response;
    let payload: ArrayBuffer;
    try {
      answer = await fetch(`${origin}${target}`, { method, headers: sent, body: body ?? null, redirect: 'manual', ...(signal ? { signal } : {}) });
      payload = await answer.arrayBuffer();
    } catch {
      // The simulator dropped the connection (an injected fault) or the client went away: no answer either.
      return Response.error();
    }
    const passed = new Headers();
    for (const [name, value] of answer.headers) if (!NOT_PASSED_BACK.has(name)) passed.append(name, value);
    const empty = method === 'HEAD' || answer.status === 204 || answer.status === 304;
    return new Response(empty ? null : payload, { status: answer.status, headers: passed });
  };
}

function isLoopbackAddress(address: string | undefined): boolean {
  return address !== undefined && (address === '::1' || /^(?:::ffff:)?127\./.test(address));
}

/** The worker's fault control route: the plan lives with the simulator, in the primary. */
export function linkedFaultControl(origin: string): NodeHandler {
  return async (req, res) => {
    // The primary sees the worker's loopback address: the check for the real client is made here.
    if (!isLoopbackAddress(req.socket.remoteAddress)) {
      sendJsonError(res, 403, 'The fault control only answers requests from this machine.');
      return;
    }
    const body = await readBody(req);
    const contentType = req.headers['content-type'];
    const answer = await fetch(`${origin}${FAULTS_CONTROL_PATH}`, {
      method: req.method ?? 'GET',
      headers: contentType ? { 'content-type': contentType } : {},
      body: body ? new Uint8Array(body) : null,
    });
    res.statusCode = answer.status;
    res.setHeader('content-type', answer.headers.get('content-type') ?? 'application/json');
    res.end(Buffer.from(await answer.arrayBuffer()));
  };
}

/** A worker's API backend over the link. */
export function linkedSimulatorBackend(origin: string): ApiBackend {
  return { fetch: linkedSimulatorFetch(origin), faultControl: linkedFaultControl(origin), banner: [`${API_PREFIX}: the simulator in the primary process`] };
}
