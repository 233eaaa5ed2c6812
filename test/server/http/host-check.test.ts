import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostCheck, MISDIRECTED } from '../../../server/http/host-check';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';

// DNS rebinding: a page on evil.example whose name is made to resolve to 127.0.0.1 reaches the console
// with `Host: evil.example:<port>`. The server answers only the hosts it is served on (loopback, the
// bound address, PUBLIC_URL's host, ALLOWED_HOSTS); any other gets 421 before anything acts. And the
// transport headers: HSTS behind https (never on loopback), CORP and Permissions-Policy everywhere.

const KEY = 'host-check-test-key-0000000000000';

afterAll(() => removeTestClientDir());

describe('which hosts are answered', () => {
  const check = createHostCheck({
    bindHost: '127.0.0.1',
    publicUrl: new URL('https://ops.example.com/console'),
    allowedHosts: ['ops.internal', '.corp.example', 'Mixed.Case:8443'],
    interfaceAddresses: () => ['192.168.1.20'],
  });

  it.each([
    '127.0.0.1:5173',
    '127.0.0.1',
    'localhost:5173',
    'LOCALHOST',
    'app.localhost:5173',
    '[::1]:5173',
    'ops.example.com',
    'ops.example.com:443',
    'ops.internal:80',
    'a.corp.example',
    'mixed.case',
    'ops.example.com.',
  ])('answers %s', (host) => {
    expect(check(host)).toBe(true);
  });

  it.each([
    undefined,
    '',
    'evil.example',
    'evil.example:5173',
    'ops.example.com.evil.example',
    'corp.example',
    'evilcorp.example',
    '192.168.1.20:5173',
    'localhost.evil.example',
    '[::2]:5173',
    '127.0.0.1.evil.example',
  ])('refuses %s', (host) => {
    expect(check(host)).toBe(false);
  });

  it('answers this machine’s own addresses when bound to every interface', () => {
    const everywhere = createHostCheck({ bindHost: '0.0.0.0', interfaceAddresses: () => ['192.168.1.20', 'fe80::1'] });
    expect(['192.168.1.20:5173', '[fe80::1]:5173', 'localhost:5173'].map(everywhere)).toEqual([true, true, true]);
    expect(everywhere('evil.example:5173')).toBe(false);
  });
});

describe('npm start, reached under another name', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SIM_API_KEY: KEY, SIM_FAULTS: '1', ALLOWED_HOSTS: 'ops.internal' });
  });
  afterAll(() => server.stop());

  it.each([
    ['GET', '/'],
    ['GET', '/projects/p-1'],
    ['GET', '/api/v2/projects'],
    ['GET', '/__sim/faults'],
    ['PUT', '/__sim/faults'],
    ['DELETE', '/__sim/faults'],
    ['POST', '/session'],
    ['GET', '/assets/app-abc123.js'],
  ])('answers %s %s for a rebound name with 421 and a plain message, acting on nothing', async (method, path) => {
    const before = await server.request({ path: '/__sim/faults' });
    const body = method === 'PUT' ? '{"rules":[{"fault":{"type":"status","status":503}}]}' : method === 'POST' ? JSON.stringify({ key: KEY }) : undefined;

    const response = await server.request({
      method,
      path,
      headers: { host: `evil.example:${server.port}`, authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body,
    });

    expect(response.status).toBe(421);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toBe(MISDIRECTED);
    expect(response.headers['set-cookie']).toBeUndefined();
    expect((await server.request({ path: '/__sim/faults' })).body).toBe(before.body);
  });

  it.each(['127.0.0.1', 'localhost', '[::1]', 'ops.internal'])('answers %s with the port', async (name) => {
    const response = await server.request({ path: '/api/v2/projects', headers: { host: `${name}:${server.port}`, authorization: `Bearer ${KEY}` } });

    expect(response.status).toBe(200);
  });

  it('answers /healthz under any name (a load balancer may check an instance by its address)', async () => {
    const response = await server.request({ path: '/healthz', headers: { host: '10.1.2.3:8080' } });

    expect(response.status).toBe(200);
  });

  it('says nothing about hosts in the banner when bound to loopback', () => {
    expect(server.printed.join('\n')).not.toContain('ALLOWED_HOSTS');
  });
});

describe('npm start bound to every interface', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SIM_API_KEY: KEY, HOST: '0.0.0.0' });
  });
  afterAll(() => server.stop());

  it('says in the banner which hosts it answers and how to allow the one people use', () => {
    expect(server.printed.join('\n')).toMatch(/Hosts answered: loopback names.*any other name gets 421: add the one people use to ALLOWED_HOSTS/);
  });
});

describe('transport headers', () => {
  let plain: TestServer;
  let behindHttps: TestServer;
  beforeAll(async () => {
    plain = await startTestServer({ SIM_API_KEY: KEY, ALLOWED_HOSTS: 'ops.internal' });
    behindHttps = await startTestServer({ SIM_API_KEY: KEY, PUBLIC_URL: 'https://ops.example.com/' });
  });
  afterAll(async () => {
    await plain.stop();
    await behindHttps.stop();
  });

  it.each(['/', '/api/v2/projects', '/assets/app-abc123.js', '/healthz'])('puts Cross-Origin-Resource-Policy and Permissions-Policy on %s', async (path) => {
    const response = await plain.request({ path, headers: { authorization: `Bearer ${KEY}` } });

    expect(response.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect(response.headers['permissions-policy']).toMatch(/(^|, )camera=\(\)(,|$)/);
    expect(response.headers['permissions-policy']).toMatch(/(^|, )geolocation=\(\)(,|$)/);
    expect(response.headers['permissions-policy']).not.toContain('clipboard');
  });

  it('sends Strict-Transport-Security when PUBLIC_URL is https', async () => {
    const response = await behindHttps.request({ path: '/', headers: { host: 'ops.example.com' } });

    expect(response.headers['strict-transport-security']).toBe('max-age=31536000');
  });

  it('sends it when a TLS proxy in front says the request came over https', async () => {
    const response = await plain.request({ path: '/', headers: { host: 'ops.internal', 'x-forwarded-proto': 'https' } });

    expect(response.headers['strict-transport-security']).toBe('max-age=31536000');
  });

  it('never on plain http, nor on a loopback name (it would pin localhost to https for every local server)', async () => {
    expect((await plain.request({ path: '/', headers: { host: 'ops.internal' } })).headers['strict-transport-security']).toBeUndefined();
    expect((await behindHttps.request({ path: '/' })).headers['strict-transport-security']).toBeUndefined();
    expect((await plain.request({ path: '/', headers: { 'x-forwarded-proto': 'https' } })).headers['strict-transport-security']).toBeUndefined();
  });

  it('refuses to start with a PUBLIC_URL that is not an http(s) URL', async () => {
    await expect(startTestServer({ PUBLIC_URL: 'ops.example.com' })).rejects.toThrow(/PUBLIC_URL/);
  });
});
