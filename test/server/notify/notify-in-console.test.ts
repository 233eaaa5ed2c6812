import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestHandler } from '../../../server/routes';
import { startNotifications, type NotificationsRuntime } from '../../../server/notify/start-notifications';
import type { Db } from '../../../server/store/db';
import { createSessions } from '../../../server/session/sessions';
import { openTestStore } from '../store/store-drivers';

// The notification routes inside the console's own pipeline: the cross-site write rule runs before them,
// and a signed-in page reaches them on the console's origin.

const SECRET = 'console-pipeline-session-secret-00000000';
let db: Db;
let runtime: NotificationsRuntime;
let server: http.Server;
let base: string;
let cookie: string;

beforeAll(async () => {
  db = (await openTestStore('pglite')).db;
  const sessions = createSessions({ secret: SECRET });
  const fetchApi = () => Promise.resolve(Response.json({ message: 'not found' }, { status: 404 }));
  runtime = startNotifications({ db, sessionSecret: SECRET, fetchApi, publicUrl: new URL('http://127.0.0.1/'), env: { WEBHOOK_ALLOW_PRIVATE: '1' }, deliver: false, log: () => undefined });
  const handler = createRequestHandler({
    backend: { fetch: fetchApi, banner: [] },
    sessions,
    template: { html: () => Promise.resolve('<!doctype html><title>t</title>') },
    assets: (_req, _res, next) => next(),
    withCsp: false,
    faultControl: false,
    notifications: runtime.notifications,
  });
  server = http.createServer((req, res) => {
    if (req.url === '/test-sign-in') {
      res.setHeader('Set-Cookie', sessions.start(req, 'pipeline-key-0000000000000000000', 'personal', false).cookie);
      res.end();
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cookie = ((await fetch(`${base}/test-sign-in`)).headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}, 60_000);

afterAll(async () => {
  await runtime.stop();
  await new Promise((resolve) => server.close(resolve));
  await db.close();
});

const body = JSON.stringify({ url: 'http://127.0.0.1:9/hook', format: 'json', scope: { kind: 'all' }, events: ['operation.failed'] });

describe('notifications in the console server', () => {
  it('refuses a cross-site write before the route sees it', async () => {
    const response = await fetch(`${base}/notifications/webhooks`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' }, body });
    expect(response.status).toBe(403);
    expect(await (await fetch(`${base}/notifications/webhooks`, { headers: { cookie } })).json()).toEqual({ webhooks: [] });
  });

  it('adds a webhook from the same origin, and answers with no-store', async () => {
    const response = await fetch(`${base}/notifications/webhooks`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' }, body });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const listed = (await (await fetch(`${base}/notifications/webhooks`, { headers: { cookie } })).json()) as { webhooks: unknown[] };
    expect(listed.webhooks).toHaveLength(1);
  });
});
