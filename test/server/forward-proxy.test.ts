import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createForwardProxy, isSafeApiPath, parseApiBase } from '../../sim/forward-proxy';
import { isApiPath, type NodeHandler } from '../../sim/node-adapter';
import { close, closedPort, listen, rawRequest } from './http-helpers';

interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const KEY = 'proxy-test-secret-key-4242';
// Headers any HTTP client (here Node's fetch) sends on its own; none of them describes the caller.
const TRANSPORT_HEADERS = ['host', 'connection', 'content-length', 'user-agent', 'accept-encoding', 'accept-language', 'sec-fetch-mode'];

const seen: SeenRequest[] = [];
let reply: (res: http.ServerResponse) => void;

const upstream = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    reply(res);
  });
});
const otherHost = http.createServer((_req, res) => {
  seen.push({ method: 'OTHER-HOST', url: '', headers: {}, body: '' });
  res.end();
});

function serve(handler: NodeHandler): http.Server {
  return http.createServer((req, res) => {
    if (isApiPath(req.url)) void handler(req, res);
    else res.writeHead(404).end();
  });
}

let proxy: http.Server;
let proxyPort: number;
let otherPort: number;

beforeAll(async () => {
  const upstreamPort = await listen(upstream);
  otherPort = await listen(otherHost);
  // A base with its own path prefix shows the path is joined below it, not swapped for /api/v2.
  proxy = serve(createForwardProxy({ apiUrl: `http://127.0.0.1:${upstreamPort}/platform/api/v2`, timeoutMs: 500 }));
  proxyPort = await listen(proxy);
});

afterAll(async () => {
  await Promise.all([close(proxy), close(upstream), close(otherHost)]);
});

beforeEach(() => {
  seen.length = 0;
  reply = (res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  };
});

describe('forward proxy', () => {
  it('forwards method, path, query, Authorization and Accept and adds nothing that identifies the caller', async () => {
    const response = await rawRequest(proxyPort, {
      path: '/api/v2/projects/p-1/operations?limit=50&cursor=2024-05-01T10%3A00%3A00.123456Z',
      headers: {
        authorization: `Bearer ${KEY}`,
        accept: 'application/json',
        cookie: 'session=browser-cookie',
        'user-agent': 'Mozilla/5.0 (the caller)',
        'x-forwarded-for': '203.0.113.7',
        'x-real-ip': '203.0.113.7',
        forwarded: 'for=203.0.113.7',
        referer: 'http://127.0.0.1/projects/p-1',
        origin: 'http://127.0.0.1',
      },
    });

    expect(response.status).toBe(200);
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request!.method).toBe('GET');
    expect(request!.url).toBe('/platform/api/v2/projects/p-1/operations?limit=50&cursor=2024-05-01T10%3A00%3A00.123456Z');
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.headers.accept).toBe('application/json');
    const extra = Object.keys(request!.headers).filter((name) => !['authorization', 'accept', ...TRANSPORT_HEADERS].includes(name));
    expect(extra).toEqual([]);
    expect(request!.headers['user-agent']).not.toContain('the caller');
  });

  it('forwards the body of a write with its content type', async () => {
    const body = JSON.stringify({ branch: { name: 'dev' }, endpoints: [{ type: 'read_write' }] });
    reply = (res) => res.writeHead(201, { 'content-type': 'application/json' }).end('{"branch":{}}');

    const response = await rawRequest(proxyPort, {
      method: 'POST',
      path: '/api/v2/projects/p-1/branches',
      headers: { authorization: `Bearer ${KEY}`, accept: 'application/json', 'content-type': 'application/json' },
      body,
    });

    expect(response.status).toBe(201);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/platform/api/v2/projects/p-1/branches', body });
    expect(seen[0]!.headers['content-type']).toBe('application/json');
  });

  it('forwards DELETE and passes back status, body and only the API headers the console reads', async () => {
    reply = (res) =>
      res
        .writeHead(429, {
          'content-type': 'application/json',
          'x-neon-ret-request-id': 'req-123',
          'retry-after': '7',
          'set-cookie': 'upstream=1',
          'x-internal-node': 'cp-17',
          'access-control-allow-origin': '*',
        })
        .end('{"code":"","message":"rate limited"}');

    const response = await rawRequest(proxyPort, { method: 'DELETE', path: '/api/v2/api_keys/17', headers: { authorization: `Bearer ${KEY}` } });

    expect(seen[0]).toMatchObject({ method: 'DELETE', url: '/platform/api/v2/api_keys/17' });
    expect(response.status).toBe(429);
    expect(response.body).toBe('{"code":"","message":"rate limited"}');
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['x-neon-ret-request-id']).toBe('req-123');
    expect(response.headers['retry-after']).toBe('7');
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(response.headers['x-internal-node']).toBeUndefined();
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it.each([
    '/api/v2/../secret',
    '/api/v2/projects/../../secret',
    '/api/v2/%2e%2e/secret',
    '/api/v2/%2E%2e/secret',
    '/api/v2/.%2e/secret',
    '/api/v2/projects/./p-1',
    '/api/v2/projects/..',
    '/api/v2//127.0.0.1/secret',
    '/api/v2/projects%2f..%2fsecret',
    '/api/v2/projects%2F..%2Fsecret',
    '/api/v2/..%5csecret',
    '/api/v2/\\..\\secret',
    '/api/v2/%252e%252e/secret',
    '/api/v2/http://127.0.0.1/secret',
    '/api/v2/http:%2f%2f127.0.0.1/secret',
    '/api/v2/http:127.0.0.1',
  ])('refuses %s with 400 without contacting the upstream', async (path) => {
    const response = await rawRequest(proxyPort, { path, headers: { authorization: `Bearer ${KEY}` } });

    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ code: '', message: expect.any(String) as string });
    expect(seen).toEqual([]);
  });

  it('does not follow a redirect from the upstream', async () => {
    reply = (res) => res.writeHead(302, { location: `http://127.0.0.1:${otherPort}/steal` }).end();

    const response = await rawRequest(proxyPort, { path: '/api/v2/projects', headers: { authorization: `Bearer ${KEY}` } });

    expect(response.status).toBe(502);
    expect(response.headers.location).toBeUndefined();
    expect(seen.map((request) => request.method)).toEqual(['GET']);
  });

  it('answers 504 when the upstream does not answer in time', async () => {
    reply = () => undefined;

    const response = await rawRequest(proxyPort, { path: '/api/v2/projects', headers: { authorization: `Bearer ${KEY}` } });

    expect(response.status).toBe(504);
    expect(response.body).not.toContain(KEY);
  });

  it('answers 502 when the upstream is down, without echoing the key', async () => {
    const down = serve(createForwardProxy({ apiUrl: `http://127.0.0.1:${await closedPort()}/api/v2` }));
    const port = await listen(down);
    try {
      const response = await rawRequest(port, { path: '/api/v2/projects', headers: { authorization: `Bearer ${KEY}` } });

      expect(response.status).toBe(502);
      expect(response.headers['content-type']).toBe('application/json');
      expect(JSON.parse(response.body)).toMatchObject({ code: '', message: expect.stringContaining('127.0.0.1') as string });
      expect(response.body).not.toContain(KEY);
    } finally {
      await close(down);
    }
  });
});

describe('API path rules', () => {
  it('accepts the paths the console uses', () => {
    for (const path of ['', '/projects', '/projects/p-1/operations/0b6f-11', '/organizations/org-1/api_keys', '/auth']) {
      expect(isSafeApiPath(path), path).toBe(true);
    }
  });

  it('refuses an API_URL carrying credentials or a query', () => {
    expect(() => parseApiBase('https://user:pw@console.neon.tech/api/v2')).toThrow(/credentials/);
    expect(() => parseApiBase('https://console.neon.tech/api/v2?x=1')).toThrow(/query/);
    expect(() => parseApiBase('file:///etc/passwd')).toThrow(/http/);
    expect(parseApiBase('https://console.neon.tech/api/v2').host).toBe('console.neon.tech');
  });
});
