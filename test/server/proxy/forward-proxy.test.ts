import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createForwardProxy, isSafeApiPath, parseApiBase } from '../../../server/proxy/forward-proxy';
import type { NodeHandler } from '../../../server/http/node-bridge';
import { isApiPath } from '../../../server/http/paths';
import { close, closedPort, listen, rawRequest } from '../http-helpers';

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
// The "evil" host: every test that tries to steer the proxy elsewhere checks it was never reached.
const evilSaw: string[] = [];
const otherHost = http.createServer((req, res) => {
  seen.push({ method: 'OTHER-HOST', url: '', headers: {}, body: '' });
  evilSaw.push(`${req.method ?? ''} ${req.url ?? ''}`);
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
// The same proxy with no mount in front: every request target reaches it, so its own guard is what is tested.
let bareProxy: http.Server;
let bareProxyPort: number;
let upstreamPort: number;
let otherPort: number;

beforeAll(async () => {
  upstreamPort = await listen(upstream);
  otherPort = await listen(otherHost);
  // A base with its own path prefix shows the path is joined below it, not swapped for /api/v2.
  const handler = createForwardProxy({ apiUrl: `http://127.0.0.1:${upstreamPort}/platform/api/v2`, timeoutMs: 500 });
  proxy = serve(handler);
  proxyPort = await listen(proxy);
  bareProxy = http.createServer((req, res) => void handler(req, res));
  bareProxyPort = await listen(bareProxy);
});

afterAll(async () => {
  await Promise.all([close(proxy), close(bareProxy), close(upstream), close(otherHost)]);
});

beforeEach(() => {
  seen.length = 0;
  evilSaw.length = 0;
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
      expect(JSON.parse(response.body)).toMatchObject({
        code: 'CONSOLE_API_UNREACHABLE',
        message: expect.stringMatching(/^Could not reach the API at 127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\)\.$/) as string,
      });
      expect(response.body).not.toContain(KEY);
    } finally {
      await close(down);
    }
  });
});

describe('the proxy only ever reaches API_URL', () => {
  const auth = { authorization: `Bearer ${KEY}` };
  const evil = () => `127.0.0.1:${otherPort}`;

  /** Where a request ended up: refused here (4xx, nothing sent on), or on the upstream below the base path. */
  function expectKeptOnApiUrl(response: { status: number }) {
    expect(evilSaw).toEqual([]);
    if (response.status >= 400 && response.status < 500) {
      expect(seen).toEqual([]);
    } else {
      expect(response.status).toBe(200);
      expect(seen).toHaveLength(1);
      expect(seen[0]!.url.startsWith('/platform/api/v2/') || seen[0]!.url === '/platform/api/v2').toBe(true);
      expect(seen[0]!.headers.host).toBe(`127.0.0.1:${upstreamPort}`);
    }
  }

  it.each([
    ['an absolute-form target to another host', () => `http://${evil()}/api/v2/projects`],
    ['an absolute-form target to the API path itself', () => `http://${evil()}/platform/api/v2/projects`],
    ['a protocol-relative target', () => `//${evil()}/api/v2/projects`],
    ['userinfo glued to the prefix', () => `/api/v2@${evil()}/projects`],
    ['a backslash authority', () => `/api/v2\\${evil()}/projects`],
    ['a path outside the mount that is as long as it', () => '/api/v3/projects'],
  ])('refuses %s when it reaches the proxy unfiltered', async (_name, target) => {
    const response = await rawRequest(bareProxyPort, { path: target(), headers: auth });

    expect(response.status).toBe(400);
    expectKeptOnApiUrl(response);
  });

  it.each([
    ['an absolute-form target', () => `http://${evil()}/api/v2/projects`],
    ['a protocol-relative target', () => `//${evil()}/api/v2/projects`],
    ['userinfo glued to the prefix', () => `/api/v2@${evil()}/projects`],
  ])('does not even hand %s to the proxy when mounted under /api/v2', async (_name, target) => {
    const response = await rawRequest(proxyPort, { path: target(), headers: auth });

    expect(response.status).toBe(404);
    expectKeptOnApiUrl(response);
  });

  it.each([
    ['userinfo-looking segment', () => `/api/v2/@${evil()}/projects`],
    ['user:password@host segment', () => `/api/v2/user:pw@${evil()}`],
    ['encoded @', () => `/api/v2/projects%40${evil()}`],
    ['fragment-looking host', () => `/api/v2/projects?next=http://${evil()}/#@${evil()}`],
    ['query carrying a URL', () => `/api/v2/projects?url=http%3A%2F%2F${evil()}%2F`],
    ['dot segment that stays below the base', () => `/api/v2/projects/p-1/%2e%2e%2e`],
  ])('keeps a %s on the API host, below the base path, or refuses it', async (_name, target) => {
    const response = await rawRequest(bareProxyPort, { path: target(), headers: auth });

    expectKeptOnApiUrl(response);
  });

  it.each(['/api/v2/..', '/api/v2/projects/%2E%2E/%2e%2e/x', '/api/v2/%2e%2e%2f%2e%2e/x', '/api/v2/..\\x', '/api/v2/%5c%5cevil/x'])(
    'refuses traversal out of the base path: %s',
    async (target) => {
      const response = await rawRequest(bareProxyPort, { path: target, headers: auth });

      expect(response.status).toBe(400);
      expectKeptOnApiUrl(response);
    },
  );

  it('ignores Host, X-Forwarded-Host, X-Forwarded-Proto and Forwarded: the target comes from API_URL alone', async () => {
    const response = await rawRequest(proxyPort, {
      path: '/api/v2/projects',
      headers: {
        ...auth,
        host: evil(),
        'x-forwarded-host': evil(),
        'x-forwarded-proto': 'https',
        'x-forwarded-port': String(otherPort),
        'x-original-url': `http://${evil()}/`,
        'x-rewrite-url': `http://${evil()}/`,
        forwarded: `host=${evil()};proto=http`,
      },
    });

    expectKeptOnApiUrl(response);
    expect(seen[0]!.url).toBe('/platform/api/v2/projects');
    const echoed = Object.entries(seen[0]!.headers).filter(([, value]) => String(value).includes(String(otherPort)));
    expect(echoed).toEqual([]);
  });

  it.each([301, 302, 303, 307, 308])('passes no %i redirect on and never follows it to its Location', async (status) => {
    reply = (res) => res.writeHead(status, { location: `http://${evil()}/steal`, 'content-type': 'text/plain' }).end('moved');

    const response = await rawRequest(proxyPort, {
      method: 'POST',
      path: '/api/v2/api_keys',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"key_name":"x"}',
    });

    expect(response.status).toBe(502);
    expect(response.headers.location).toBeUndefined();
    expect(response.body).not.toContain(KEY);
    expect(seen.map((request) => request.method)).toEqual(['POST']);
    expect(evilSaw).toEqual([]);
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
