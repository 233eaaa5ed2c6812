import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { isBlockedAddress } from '../../../server/notify/address-guard';
import { nextAttemptAt, retryAfterMs, RETRY_SCHEDULE_MS, verdictOf } from '../../../server/notify/backoff';
import { jsonEvent, renderBody, slackMessage, type NotificationEvent } from '../../../server/notify/payload';
import { newWebhookSecret, signatureHeaders, verifySignature } from '../../../server/notify/signature';
import { checkWebhookUrl, type Resolve } from '../../../server/notify/url-guard';

const PUBLIC = new URL('https://console.example.com/');
const event: NotificationEvent = {
  id: 'op-1:failed:1',
  type: 'operation.failed',
  occurredAt: '2026-11-26T01:00:00.000Z',
  project: { id: 'proj-1', name: 'billing <prod>' },
  operation: { id: 'op-1', project_id: 'proj-1', action: 'apply_config', status: 'failed', error: 'disk & full', failures_count: 1 },
};

describe('webhook signature (Standard Webhooks)', () => {
  it('signs "id.timestamp.body" with HMAC-SHA256 under the bytes after whsec_, in base64, timestamp in unix seconds', () => {
    const key = Buffer.alloc(32, 7);
    const headers = signatureHeaders(`whsec_${key.toString('base64')}`, 'op-1:failed:1', '{"a":1}', 1_764_000_000_123);
    const expected = createHmac('sha256', key).update('op-1:failed:1.1764000000.{"a":1}').digest('base64');
    expect(headers).toEqual({ 'webhook-id': 'op-1:failed:1', 'webhook-timestamp': '1764000000', 'webhook-signature': `v1,${expected}` });
  });

  it("is verified by the receivers' own library (npm standardwebhooks), which refuses another body or another secret", () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ id: 'op-1:finished', type: 'operation.finished' });
    const headers = signatureHeaders(secret, 'op-1:finished', body, Date.now());
    expect(new Webhook(secret).verify(body, headers)).toEqual({ id: 'op-1:finished', type: 'operation.finished' });
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('signs for a webhook made before (whsec_ and base64url) with the bytes its secret encodes: the library verifies with it written in base64', () => {
    const bytes = Buffer.from('fb'.repeat(32), 'hex'); // base64url writes these with - and _
    const old = `whsec_${bytes.toString('base64url')}`;
    expect(old).toMatch(/[-_]/);
    const headers = signatureHeaders(old, 'evt', '{"ok":true}', Date.now());
    expect(new Webhook(`whsec_${bytes.toString('base64')}`).verify('{"ok":true}', headers)).toEqual({ ok: true });
  });

  it('verifies its own signature and refuses another body, another secret, another id, or a stale time', () => {
    const now = 1_764_000_000_000;
    const secret = newWebhookSecret();
    const headers = signatureHeaders(secret, 'evt-1', 'body', now);
    expect(verifySignature(secret, 'body', headers, now + 60_000)).toBe(true);
    expect(verifySignature(secret, 'body!', headers, now)).toBe(false);
    expect(verifySignature(newWebhookSecret(), 'body', headers, now)).toBe(false);
    expect(verifySignature(secret, 'body', { ...headers, 'webhook-id': 'evt-2' }, now)).toBe(false);
    expect(verifySignature(secret, 'body', headers, now + 6 * 60_000)).toBe(false);
    expect(verifySignature(secret, 'body', { ...headers, 'webhook-signature': 'v1,zz' }, now)).toBe(false);
  });
});

describe('webhook address guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::a00:1',
    '2002:c0a8:101::1',
    '::127.0.0.1',
    // IPv4-translated (::ffff:0:0/96) and local-use NAT64 (64:ff9b:1::/48, as a /96, a /64 and a /48), read as the IPv4 they carry.
    '::ffff:0:127.0.0.1',
    '::ffff:0:a00:1',
    '::ffff:0:169.254.169.254',
    '64:ff9b:1::a00:1',
    '64:ff9b:1::127.0.0.1',
    '64:ff9b:1:0:a:0:1:0',
    '64:ff9b:1:a00:0:1::',
    // The rest of 64:ff9b::/32 carries no IPv4 and is reserved.
    '64:ff9b:0:1::808:808',
  ])('refuses %s', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2a00:1450:4001:80b::200e',
    '::ffff:0:8.8.8.8',
    '64:ff9b::808:808',
    '64:ff9b:1::808:808',
  ])('lets %s through', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  const resolveTo =
    (...addresses: string[]): Resolve =>
    () =>
      Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) })));

  it('names the switch that allows private receivers when it refuses one', async () => {
    expect(await checkWebhookUrl('http://127.0.0.1:9999/hook', { allowPrivate: false })).toEqual({
      ok: false,
      problem:
        "127.0.0.1 is a loopback, private or reserved address (127.0.0.1); webhooks go only to public addresses unless the console's server runs with WEBHOOK_ALLOW_PRIVATE=1.",
    });
  });

  it('refuses other schemes, credentials, names that do not resolve, and private answers', async () => {
    const publicDns = { allowPrivate: false, resolve: resolveTo('93.184.216.34') };
    expect(await checkWebhookUrl('ftp://example.com/hook', publicDns)).toMatchObject({ ok: false, problem: expect.stringMatching(/http and https/) as string });
    expect(await checkWebhookUrl('https://user:pw@example.com/hook', publicDns)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/user name or password/) as string,
    });
    expect(await checkWebhookUrl('not a url', publicDns)).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('https://nowhere.invalid/', { allowPrivate: false, resolve: () => Promise.reject(new Error('ENOTFOUND')) })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/does not resolve/) as string,
    });
    expect(await checkWebhookUrl('https://sneaky.example.com/', { allowPrivate: false, resolve: resolveTo('93.184.216.34', '10.0.0.5') })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/private/) as string,
    });
    expect(await checkWebhookUrl('http://[::ffff:127.0.0.1]:8080/', publicDns)).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('https://hooks.example.com/x', publicDns)).toMatchObject({ ok: true, address: { address: '93.184.216.34' } });
  });

  it('lets loopback through with WEBHOOK_ALLOW_PRIVATE', async () => {
    expect(await checkWebhookUrl('http://127.0.0.1:9999/hook', { allowPrivate: true })).toMatchObject({
      ok: true,
      address: { address: '127.0.0.1', family: 4 },
    });
  });
});

describe('webhook retries', () => {
  it('retries timeouts, 5xx and 429; a 410 says the receiver is gone; other 4xx and redirects are final', () => {
    expect([undefined, 500, 503, 429].map(verdictOf)).toEqual(['retry', 'retry', 'retry', 'retry']);
    expect([400, 401, 404, 301].map(verdictOf)).toEqual(['final', 'final', 'final', 'final']);
    expect(verdictOf(410)).toBe('gone');
    expect(verdictOf(204)).toBe('delivered');
  });

  it("follows Standard Webhooks' schedule after each failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up", () => {
    const now = 1_000_000;
    const waits = [1, 2, 3, 4, 5, 6, 7].map((attempts) => (nextAttemptAt({ attempts, nowMs: now }) ?? 0) - now);
    expect(waits).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(waits).toEqual(RETRY_SCHEDULE_MS);
    expect(nextAttemptAt({ attempts: 8, nowMs: now })).toBeNull();
    // Jitter adds at most a fifth.
    expect(nextAttemptAt({ attempts: 1, nowMs: now, jitter: 1 })).toBe(now + 6_000);
  });

  it('waits at least as long as Retry-After asks (seconds or a date), at most 6 hours', () => {
    const now = 1_000_000;
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(new Date(now + 90_000).toUTCString(), now)).toBeGreaterThanOrEqual(89_000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(String(24 * 3600), now)).toBe(6 * 3_600_000);
    expect(nextAttemptAt({ attempts: 1, nowMs: now, retryAfter: 120_000 })).toBe(now + 120_000);
    expect(nextAttemptAt({ attempts: 1, nowMs: now, retryAfter: 1_000 })).toBe(now + 5_000);
  });
});

describe('webhook payloads', () => {
  it('sends the JSON event as docs/notifications.md states it', () => {
    expect(jsonEvent(event, PUBLIC)).toEqual({
      id: 'op-1:failed:1',
      type: 'operation.failed',
      occurred_at: '2026-11-26T01:00:00.000Z',
      updated_at: null,
      project: { id: 'proj-1', name: 'billing <prod>' },
      operation: event.operation,
      url: 'https://console.example.com/projects/proj-1/operations/op-1',
    });
    expect(Object.keys(JSON.parse(renderBody('json', event, PUBLIC)) as object)).toEqual([
      'id',
      'type',
      'occurred_at',
      'updated_at',
      'project',
      'operation',
      'url',
    ]);
    // The platform's time of the change beside the console's.
    expect(jsonEvent({ ...event, operation: { ...event.operation, updated_at: '2026-11-26T00:59:58Z' } }, PUBLIC).updated_at).toBe('2026-11-26T00:59:58Z');
  });

  it("sends Slack's incoming-webhook format: text, blocks, a link to the console, mrkdwn escaped", () => {
    const message = slackMessage(event, PUBLIC);
    expect(message.text).toBe('Apply config in billing &lt;prod&gt; failed (Error): https://console.example.com/projects/proj-1/operations/op-1');
    const section = JSON.stringify(message.blocks[0]);
    expect(section).toContain('<https://console.example.com/projects/proj-1/operations/op-1|Apply config in billing &lt;prod&gt; failed>');
    expect(section).toContain('disk &amp; full');
    expect(message.blocks[0]).toMatchObject({ type: 'section', text: { type: 'mrkdwn' } });
  });
});
