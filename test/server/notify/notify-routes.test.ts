import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveriesSchema, TOO_MANY_WEBHOOKS_CODE, webhookDeliveriesPath, webhookPath, WEBHOOKS_PATH } from '../../../src/api/notification-schemas';
import { createNotifications, MAX_WEBHOOKS_PER_KEY } from '../../../server/notify/notifications';
import { enqueueDelivery } from '../../../server/store/deliveries';
import { notifyRoutes } from '../../../server/notify/notify-routes';
import { mountRoutes } from '../../../server/routes/router';
import { openRoute } from '../../../server/session/route-guard';
import { createApiReader } from '../../../server/proxy/api-reader';
import { createProjectAccess } from '../../../server/proxy/project-access';
import { createSeal } from '../../../server/seal/seal';
import { sendWebhook } from '../../../server/notify/send-webhook';
import type { Db } from '../../../server/store/db';
import { createSessions } from '../../../server/session/sessions';
import { openTestStore } from '../store/store-drivers';

// The routes as a signed-in page uses them: webhooks are seen, tested and removed only with the key that made them.

const SECRET = 'route-test-session-secret-0000000000000';
let db: Db;
let server: http.Server;
let base: string;

beforeAll(async () => {
  db = (await openTestStore('pglite')).db;
  const seal = createSeal(SECRET);
  const sessions = createSessions({ seal });
  const notifications = createNotifications({
    db,
    seal,
    access: createProjectAccess(createApiReader(() => Promise.resolve(Response.json({}, { status: 404 })))),
    send: sendWebhook,
    publicUrl: new URL('http://127.0.0.1/'),
    allowPrivate: false,
    resolve: () => Promise.resolve([{ address: '93.184.216.34', family: 4 }]),
  });
  // The notification routes in Fastify, beside a test's own sign-in and a catch-all.
  const signIn = openRoute({
    method: 'GET',
    url: '/sign-in/:key',
    config: { needs: 'none' },
    handler: ({ req, res, params }) => {
      const { cookie } = sessions.start(req, decodeURIComponent(params.key ?? ''), 'personal', false);
      res.setHeader('Set-Cookie', cookie);
      res.end();
      return Promise.resolve();
    },
  });
  const notFound = openRoute({ method: 'GET', url: '/*', config: { needs: 'none' }, handler: ({ res }) => Promise.resolve(void res.writeHead(404).end()) });
  server = http.createServer();
  await mountRoutes(server, {
    rooms: [
      { name: 'notify', routes: notifyRoutes({ sessions, notifications }) },
      { name: 'test', routes: [signIn, notFound] },
    ],
    sessions,
    withCsp: false,
    log: () => undefined,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await db.close();
});

async function signIn(key: string): Promise<string> {
  const response = await fetch(`${base}/sign-in/${encodeURIComponent(key)}`);
  return (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

async function call(cookie: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { cookie, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
}

const hook = { url: 'https://hooks.example.com/ops', format: 'json', scope: { kind: 'all' }, events: ['operation.failed'] };

describe('notification routes', () => {
  it('answers 401 without a session', async () => {
    expect(await call('', 'GET', '/notifications/webhooks')).toMatchObject({ status: 401, json: { code: 'not_signed_in' } });
  });

  it('refuses a bad URL with a message for the form', async () => {
    const cookie = await signIn('key-a-000000000000000000000000');
    expect(await call(cookie, 'POST', '/notifications/webhooks', { ...hook, url: 'http://127.0.0.1:8080/x' })).toMatchObject({
      status: 400,
      json: { code: 'invalid_webhook_url', message: expect.stringMatching(/loopback, private/) as string },
    });
    expect(await call(cookie, 'POST', '/notifications/webhooks', { ...hook, events: [] })).toMatchObject({
      status: 400,
      json: { message: expect.stringMatching(/at least one event/) as string },
    });
  });

  it('shows, and lets remove, a webhook only to sessions of the key that made it; the secret only once', async () => {
    const a = await signIn('key-a-000000000000000000000000');
    const b = await signIn('key-b-000000000000000000000000');
    const created = await call(a, 'POST', '/notifications/webhooks', hook);
    expect(created).toMatchObject({ status: 201, json: { secret: expect.stringMatching(/^whsec_/) as string, webhook: { url: hook.url, state: 'active' } } });
    const id = (created.json?.webhook as { id: string }).id;

    const listA = await call(a, 'GET', '/notifications/webhooks');
    expect(listA.json?.webhooks).toMatchObject([{ id }]);
    expect(JSON.stringify(listA.json)).not.toContain('whsec_');
    expect((await call(b, 'GET', '/notifications/webhooks')).json).toEqual({ webhooks: [] });
    expect((await call(b, 'DELETE', `/notifications/webhooks/${id}`)).status).toBe(404);
    expect((await call(b, 'GET', `/notifications/webhooks/${id}/deliveries`)).status).toBe(404);
    expect((await call(a, 'GET', `/notifications/webhooks/${id}/deliveries`)).json).toEqual({ deliveries: [] });
    expect((await call(a, 'DELETE', `/notifications/webhooks/${id}`)).status).toBe(204);
    expect((await call(a, 'GET', '/notifications/webhooks')).json).toEqual({ webhooks: [] });
  });

  it('"Notify me when it ends" needs a webhook to send to', async () => {
    const c = await signIn('key-c-000000000000000000000000');
    expect(await call(c, 'POST', '/notifications/watches', { projectId: 'p1', operationId: 'op-1' })).toMatchObject({
      status: 409,
      json: { code: 'no_webhook' },
    });
    await call(c, 'POST', '/notifications/webhooks', hook);
    expect(await call(c, 'POST', '/notifications/watches', { projectId: 'p1', operationId: 'op-1' })).toMatchObject({
      status: 201,
      json: { operationId: 'op-1', webhooks: 1 },
    });
    expect((await call(c, 'GET', '/notifications/watches')).json).toMatchObject({ watches: [{ projectId: 'p1', operationId: 'op-1' }] });
  });

  it('bounds watches: an id past 256 characters is refused with why, and a key has at most 200 open', async () => {
    const d = await signIn('key-d-000000000000000000000000');
    await call(d, 'POST', '/notifications/webhooks', hook);
    expect(await call(d, 'POST', '/notifications/watches', { projectId: 'p1', operationId: 'x'.repeat(257) })).toMatchObject({
      status: 400,
      json: { message: 'operationId: An id is at most 256 characters.' },
    });
    const [made] = (await call(d, 'GET', '/notifications/webhooks')).json?.webhooks as Array<{ id: string }>;
    const owner =
      (await db.query<{ owner_fingerprint: string }>('SELECT owner_fingerprint FROM notify_webhooks WHERE id = $1', [made?.id ?? ''])).rows[0]
        ?.owner_fingerprint ?? '';
    await db.query(
      `INSERT INTO notify_watches (owner_fingerprint, project_id, operation_id, created_at) SELECT $1, 'p1', 'op-' || n, now() FROM generate_series(1, 199) AS n`,
      [owner],
    );
    expect((await call(d, 'POST', '/notifications/watches', { projectId: 'p1', operationId: 'op-200' })).status).toBe(201);
    // Watching one already watched is no new watch.
    expect((await call(d, 'POST', '/notifications/watches', { projectId: 'p1', operationId: 'op-1' })).status).toBe(201);
    expect(await call(d, 'POST', '/notifications/watches', { projectId: 'p1', operationId: 'op-201' })).toMatchObject({
      status: 409,
      json: { code: 'too_many_watches', message: 'At most 200 operations can be watched at once: one of them has to end first.' },
    });
  });

  it('"Redeliver" reaches one event of the log by its id, and only the owner\'s', async () => {
    const e = await signIn('key-e-000000000000000000000000');
    const id = ((await call(e, 'POST', '/notifications/webhooks', hook)).json?.webhook as { id: string }).id;
    const path = `/notifications/webhooks/${id}/deliveries/${encodeURIComponent('op-1:failed:1')}/redeliver`;
    expect(await call(e, 'POST', path)).toMatchObject({ status: 404, json: { message: 'This webhook has no such event in its log.' } });
    expect((await call(await signIn('key-f-000000000000000000000000'), 'POST', path)).json).toMatchObject({ message: 'No such webhook.' });
    expect((await call(e, 'GET', path)).status).toBe(405);
  });

  it(
    `refuses a key's webhook past ${MAX_WEBHOOKS_PER_KEY} with 409 naming the limit, and takes one again once one is removed`,
    { timeout: 30_000 },
    async () => {
      const g = await signIn('key-g-000000000000000000000000');
      const made = await Promise.all(Array.from({ length: MAX_WEBHOOKS_PER_KEY }, () => call(g, 'POST', WEBHOOKS_PATH, hook)));
      expect(made.map((answer) => answer.status)).toEqual(made.map(() => 201));
      // Two more at once: neither passes the limit.
      const refused = await Promise.all([call(g, 'POST', WEBHOOKS_PATH, hook), call(g, 'POST', WEBHOOKS_PATH, hook)]);
      for (const answer of refused)
        expect(answer).toMatchObject({
          status: 409,
          json: { code: TOO_MANY_WEBHOOKS_CODE, message: expect.stringContaining(`at most ${MAX_WEBHOOKS_PER_KEY} webhooks`) as string },
        });
      expect(((await call(g, 'GET', WEBHOOKS_PATH)).json?.webhooks as unknown[]).length).toBe(MAX_WEBHOOKS_PER_KEY);
      // Another key is not counted with this one.
      expect((await call(await signIn('key-h-000000000000000000000000'), 'POST', WEBHOOKS_PATH, hook)).status).toBe(201);

      const id = (made[0]?.json?.webhook as { id: string }).id;
      expect((await call(g, 'DELETE', webhookPath(id))).status).toBe(204);
      expect((await call(g, 'POST', WEBHOOKS_PATH, hook)).status).toBe(201);
    },
  );

  it('pages through a delivery log longer than a page, each delivery once, newest first', { timeout: 30_000 }, async () => {
    const i = await signIn('key-i-000000000000000000000000');
    const id = ((await call(i, 'POST', WEBHOOKS_PATH, hook)).json?.webhook as { id: string }).id;
    const count = 7;
    for (let n = 0; n < count; n++) {
      await enqueueDelivery(db, {
        webhookId: id,
        eventId: `op-${n}:failed:1`,
        type: 'operation.failed',
        projectId: 'p-1',
        operationId: `op-${n}`,
        occurredAt: new Date(Date.UTC(2026, 10, 1, 0, n)),
        operation: { id: `op-${n}`, status: 'failed' },
        now: new Date(Date.UTC(2026, 10, 1, 0, n)),
      });
    }
    // In the log once an attempt was made (what the delivery worker records).
    await db.query('UPDATE notify_deliveries SET visible = true WHERE webhook_id = $1', [id]);
    const read = async (query: string) => DeliveriesSchema.parse((await call(i, 'GET', `${webhookDeliveriesPath(id)}${query}`)).json);

    const whole = await read('');
    expect(whole.deliveries.map((d) => d.eventId)).toEqual(Array.from({ length: count }, (_v, n) => `op-${count - 1 - n}:failed:1`));
    expect(whole.nextCursor).toBeUndefined();

    const seen: string[] = [];
    const pages: number[] = [];
    let cursor: string | null | undefined = undefined;
    do {
      const page = await read(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      pages.push(page.deliveries.length);
      seen.push(...page.deliveries.map((d) => d.eventId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages).toEqual([3, 3, 1]);
    expect(seen).toEqual(whole.deliveries.map((d) => d.eventId));

    expect(await call(i, 'GET', `${webhookDeliveriesPath(id)}?limit=0`)).toMatchObject({
      status: 400,
      json: { message: expect.stringContaining('limit') as string },
    });
    expect((await call(i, 'GET', `${webhookDeliveriesPath(id)}?cursor=abc`)).status).toBe(400);
  });
});
