import http from 'node:http';
import { getResponse } from 'msw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeHandler } from '../../../server/http/node-bridge';
import { isApiPath } from '../../../server/http/paths';
import { createSimulatorHandler } from '../../../server/proxy/simulator-fetch';
import { fakeClock } from '../../../sim/clock';
import { createControlPlane } from '../../../sim/control-plane';
import { createHandlers } from '../../../sim/handlers';
import { seedDemo } from '../../../sim/seed';
import { close, listen, rawRequest, type RawRequest } from '../http-helpers';

const KEY = 'adapter-test-key-0000000000000000';
const START = Date.parse('2026-03-02T09:00:00Z');

/** A seeded simulator; two built alike hold the same data, ids included. */
function simulator() {
  const controlPlane = createControlPlane({ clock: fakeClock(START) });
  const seed = seedDemo(controlPlane, { apiKey: KEY });
  return { handlers: createHandlers(controlPlane), seed };
}

function serve(handler: NodeHandler): http.Server {
  return http.createServer((req, res) => {
    if (isApiPath(req.url)) void handler(req, res);
    else res.writeHead(404).end();
  });
}

interface Answer {
  status: number;
  contentType: string | null;
  body: unknown;
}

/** Request ids are random per request; everything else must match. */
function comparable(status: number, contentType: string | null, text: string): Answer {
  const body: unknown = text === '' ? null : JSON.parse(text);
  if (body && typeof body === 'object' && 'request_id' in body) return { status, contentType, body: { ...body, request_id: '<id>' } };
  return { status, contentType, body };
}

describe('node adapter', () => {
  const served = simulator();
  const direct = simulator();
  const server = serve(createSimulatorHandler(served.handlers));
  let port: number;

  beforeAll(async () => {
    port = await listen(server);
  });
  afterAll(() => close(server));

  const auth = { authorization: `Bearer ${KEY}`, accept: 'application/json' };
  const big = () => served.seed.projectIds.big;
  const exchanges: [string, () => RawRequest][] = [
    ['the project list', () => ({ path: '/api/v2/projects?limit=2', headers: auth })],
    ['an organization’s projects', () => ({ path: `/api/v2/projects?org_id=${served.seed.orgIds.acme}`, headers: auth })],
    ['an operations page', () => ({ path: `/api/v2/projects/${big()}/operations?limit=5`, headers: auth })],
    ['a missing key', () => ({ path: '/api/v2/projects' })],
    ['a wrong key', () => ({ path: '/api/v2/projects', headers: { authorization: 'Bearer nope' } })],
    ['an unknown route', () => ({ path: '/api/v2/no/such/route', headers: auth })],
    [
      'a branch creation with a JSON body',
      () => ({
        method: 'POST',
        path: `/api/v2/projects/${served.seed.projectIds.personal}/branches`,
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ branch: { name: 'from-the-adapter' }, endpoints: [{ type: 'read_write' }] }),
      }),
    ],
    ['a malformed JSON body', () => ({ method: 'POST', path: '/api/v2/api_keys', headers: { ...auth, 'content-type': 'application/json' }, body: '{' })],
  ];

  it.each(exchanges)('answers %s exactly as the handlers do', async (_name, build) => {
    const request = build();

    const viaSocket = await rawRequest(port, request);
    const expected = await getResponse(
      direct.handlers,
      new Request(`http://localhost${request.path}`, {
        method: request.method ?? 'GET',
        headers: request.headers ?? {},
        body: request.body ?? null,
      }),
    );

    expect(expected).toBeDefined();
    const want = comparable(expected!.status, expected!.headers.get('content-type'), await expected!.text());
    expect(comparable(viaSocket.status, viaSocket.headers['content-type'] ?? null, viaSocket.body)).toEqual(want);
    expect(viaSocket.headers['x-neon-ret-request-id']).toEqual(expect.any(String));
  });

  it('answers a path no handler takes with the platform’s 404 body', async () => {
    const bare = serve(createSimulatorHandler([]));
    const barePort = await listen(bare);
    try {
      const response = await rawRequest(barePort, { path: '/api/v2/projects', headers: auth });

      expect(response.status).toBe(404);
      expect(response.headers['content-type']).toBe('application/json');
      const body = JSON.parse(response.body) as Record<string, unknown>;
      expect(body).toEqual({ code: '', message: 'no route for GET /api/v2/projects', request_id: expect.any(String) as string });
      expect(response.headers['x-neon-ret-request-id']).toBe(body.request_id);
    } finally {
      await close(bare);
    }
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const response = await rawRequest(port, {
      method: 'POST',
      path: '/api/v2/api_keys',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ key_name: 'x'.repeat(1024 * 1024) }),
    });

    expect(response.status).toBe(413);
  });
});

describe('isApiPath', () => {
  it('takes /api/v2 and what is below it, nothing that merely starts with the same letters', () => {
    expect(['/api/v2', '/api/v2/', '/api/v2/projects', '/api/v2?x=1'].every(isApiPath)).toBe(true);
    expect(['/api/v20', '/api/v2.json', '/api/v2x/projects', '/api', '/', '/projects/api/v2'].some(isApiPath)).toBe(false);
  });
});
