import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteDataDir } from '../../support/pglite-template';
import { asPage, KEY, signIn } from '../archive/archive-support';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';

// The notification routes inside the console's own server, as every way of starting it builds it: the
// cross-site write rule runs before them, and a signed-in page reaches them on the console's origin.

let server: TestServer;
let cookie: string;

beforeAll(async () => {
  server = await startTestServer({ SIM_API_KEY: KEY, WEBHOOK_ALLOW_PRIVATE: '1', DATA_DIR: await pgliteDataDir() });
  cookie = await signIn(server);
}, 60_000);

afterAll(async () => {
  await server.stop();
  await removeTestClientDir();
});

const body = JSON.stringify({ url: 'http://127.0.0.1:9/hook', format: 'json', scope: { kind: 'all' }, events: ['operation.failed'] });
const post = (headers: Record<string, string>) =>
  server.request({ method: 'POST', path: '/notifications/webhooks', headers: { cookie, 'content-type': 'application/json', ...headers }, body });

describe('notifications in the console server', () => {
  it('refuses a cross-site write before the route sees it', async () => {
    const response = await post({ 'sec-fetch-site': 'cross-site' });
    expect(response.status).toBe(403);
    expect(JSON.parse((await asPage(server, cookie, '/notifications/webhooks')).body)).toEqual({ webhooks: [] });
  });

  it('adds a webhook from the same origin, and answers with no-store', async () => {
    const response = await post({ 'sec-fetch-site': 'same-origin' });
    expect(response.status, response.body).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const listed = JSON.parse((await asPage(server, cookie, '/notifications/webhooks')).body) as { webhooks: unknown[] };
    expect(listed.webhooks).toHaveLength(1);
  });

  it('answers a session that ended with the one 401 every route gives, expiring its cookie', async () => {
    const ended = await signIn(server);
    await server.request({ method: 'POST', path: '/session/sign-out', headers: { cookie: ended, origin: `http://127.0.0.1:${server.port}` } });
    for (const path of ['/notifications/webhooks', '/archive/sources', '/api/v2/projects']) {
      const response = await asPage(server, ended, path);
      expect(response.status, path).toBe(401);
      expect(JSON.parse(response.body), path).toMatchObject({ code: 'session_signed_out', request_id: expect.any(String) as string });
      expect(response.headers['set-cookie']?.[0], path).toMatch(/Max-Age=0/);
    }
  });
});
