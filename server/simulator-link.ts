// With several worker processes, the simulator (one simulated world) lives in the primary alone and the
// workers reach it over loopback: this is both ends of that link. The primary serves the simulator's
// /api/v2 and its fault control on 127.0.0.1 (a random port); a worker's ApiBackend forwards to it as it
// is (every header but hop-by-hop ones, every answer header, and a dropped connection stays dropped), so
// a worker behaves exactly as the single process that holds the simulator itself.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiBackend } from './proxy/api-backend';
import { API_PREFIX, isApiPath, isFaultControlPath, nodeHandler, readBody, sendJsonError, FAULTS_CONTROL_PATH, type ApiFetch, type NodeHandler } from './http/node-bridge';

/** The environment variable that hands a worker the primary's simulator address. */
export const SIMULATOR_LINK_ENV = 'OPS_CONSOLE_SIMULATOR_URL';

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'te', 'trailer', 'content-length', 'cookie', 'proxy-connection']);
const NOT_PASSED_BACK = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'date']);

/** The primary's side: the simulator's handlers (and its fault control, when mounted) on a loopback port; resolves with its origin. */
export async function serveSimulatorLink(backend: ApiBackend, { faultControl }: { faultControl: boolean }): Promise<{ origin: string; close: () => Promise<void> }> {
  const api = nodeHandler(backend.fetch);
  // The fault control is there only when the console mounts it (SIM_FAULTS=1, dev), as on the single process.
  const faults = faultControl ? backend.faultControl : undefined;
  const answer = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (isFaultControlPath(req.url) && faults) await faults(req, res);
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

// Kept open between calls: a render makes four, and node:http costs far less per call than fetch.
const linkAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** The worker's side: /api/v2 calls sent to the primary's simulator as they are. */
export function linkedSimulatorFetch(origin: string): ApiFetch {
  const { hostname, port } = new URL(origin);
  return ({ method, target, headers, body, signal }) =>
    new Promise<Response>((resolve) => {
      const sent: Record<string, string> = {};
      for (const [name, value] of headers) if (!HOP_BY_HOP.has(name)) sent[name] = value;
      if (body) sent['content-length'] = String(body.byteLength);
      // The simulator dropped the connection (an injected fault) or the client went away: no answer either.
      const dropped = () => resolve(Response.error());
      const req = http.request({ host: hostname, port, method, path: target, headers: sent, agent: linkAgent, ...(signal ? { signal } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', dropped);
        res.on('close', () => {
          if (!res.complete) dropped();
        });
        res.on('end', () => {
          const passed = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value === undefined || NOT_PASSED_BACK.has(name)) continue;
            for (const item of Array.isArray(value) ? value : [value]) passed.append(name, item);
          }
          const status = res.statusCode ?? 502;
          const empty = method === 'HEAD' || status === 204 || status === 304;
          resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers: passed }));
        });
      });
      req.on('error', dropped);
      req.end(body);
    });
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
