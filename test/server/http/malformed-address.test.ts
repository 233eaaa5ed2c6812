import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPageRenderer } from '../../../server/pages/server-render';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';

// An address the browser sends as it was typed (`%%%`, a cut UTF-8 sequence) cannot be decoded: it is
// still a page of the console, which says "Page not found" itself, not a bare 400 or 404 from a layer below.
// Under the console's own JSON routes it is the client's 400, never the server's 500.

const KEY = 'malformed-address-key-000000000000';
const MALFORMED = ['/%%%garbage', '/projects/%E0%A4%A', '/projects/%E0%A4%A/operations/%ZZ', '/settings/%'];

afterAll(() => removeTestClientDir());

describe('a malformed address', () => {
  let server: TestServer;
  let cookie = '';
  beforeAll(async () => {
    const entry = await import('../../../src/entry-server');
    await entry.loadScreens();
    server = await startTestServer({ SIM_API_KEY: KEY }, { render: createPageRenderer({ entry: () => Promise.resolve(entry) }) });
    const origin = `http://127.0.0.1:${server.port}`;
    const signedIn = await server.request({
      method: 'POST',
      path: '/session',
      headers: { 'content-type': 'application/json', accept: 'application/json', origin },
      body: JSON.stringify({ key: KEY }),
    });
    cookie = signedIn.headers['set-cookie']?.[0]?.split(';')[0] ?? '';
  });
  afterAll(() => server.stop());

  it.each(MALFORMED)('%s gets the console page, signed out', async (path) => {
    const response = await server.request({ method: 'GET', path, headers: { accept: 'text/html' } });
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.body).toContain('<div id="root">');
  });

  it.each(MALFORMED)('%s gets the console page, signed in', async (path) => {
    const response = await server.request({ method: 'GET', path, headers: { cookie, accept: 'text/html' } });
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.body).toContain('<div id="root">');
    expect(server.logged.join('\n')).not.toMatch(/Internal error|failed/);
  });

  it.each(['/projects/%E0%A4%A', '/projects/%ZZ/operations/op-1', '/organizations/%E0%A4%A/api_keys'])(
    '/api/v2%s is the client’s 400 from the simulator, as in front of a real API, never a 500',
    async (path) => {
      const response = await server.request({ method: 'GET', path: `/api/v2${path}`, headers: { cookie, accept: 'application/json' } });
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ message: 'Invalid API path.' });
    },
  );

  it('/archive and /notifications with a malformed id answer 400, never a 500', async () => {
    for (const path of ['/archive/projects/%E0%A4%A/operations', '/notifications/webhooks/%E0%A4%A/deliveries']) {
      const response = await server.request({ method: 'GET', path, headers: { cookie, accept: 'application/json' } });
      expect(response.status, path).toBe(400);
    }
  });
});
