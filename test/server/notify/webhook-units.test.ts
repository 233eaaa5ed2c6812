import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isBlockedAddress } from '../../../server/notify/address-guard';
import { backoffMs, FIRST_RETRY_MS, nextAttemptAt, retryAfterMs, RETRY_FOR_MS, verdictOf } from '../../../server/notify/backoff';
import { jsonEvent, renderBody, slackMessage, type NotificationEvent } from '../../../server/notify/payload';
import { signatureHeader, verifySignature } from '../../../server/notify/signature';
import { checkWebhookUrl, type Resolve } from '../../../server/notify/url-guard';

const PUBLIC = new URL('https://console.example.com/');
const event: NotificationEvent = {
  id: 'op-1:failed:1',
  type: 'operation.failed',
  occurredAt: '2026-11-26T01:00:00.000Z',
  project: { id: 'proj-1', name: 'billing <prod>' },
  operation: { id: 'op-1', project_id: 'proj-1', action: 'apply_config', status: 'failed', error: 'disk & full', failures_count: 1 },
};

describe('webhook signature', () => {
  it('signs "<t>.<raw body>" with HMAC-SHA256 in hex, t in unix seconds', () => {
    const header = signatureHeader('s3cret', '{"a":1}', 1_764_000_000_123);
    const expected = createHmac('sha256', 's3cret').update('1764000000.{"a":1}').digest('hex');
    expect(header).toBe(`t=1764000000,v1=${expected}`);
  });

  it('verifies its own signature and refuses another body, another secret, or a stale time', () => {
    const now = 1_764_000_000_000;
    const header = signatureHeader('s3cret', 'body', now);
    expect(verifySignature('s3cret', 'body', header, now + 60_000)).toBe(true);
    expect(verifySignature('s3cret', 'body!', header, now)).toBe(false);
    expect(verifySignature('other', 'body', header, now)).toBe(false);
    expect(verifySignature('s3cret', 'body', header, now + 6 * 60_000)).toBe(false);
    expect(verifySignature('s3cret', 'body', 't=x,v1=zz', now)).toBe(false);
  });
});

describe('webhook address guard', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '64:ff9b::a00:1', '2002:c0a8:101::1', '::127.0.0.1',
  ])('refuses %s', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2a00:1450:4001:80b::200e'])('lets %s through', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  const resolveTo =
    (...addresses: string[]): Resolve =>
    () =>
      Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) })));

  it('refuses other schemes, credentials, names that do not resolve, and private answers', async () => {
    const publicDns = { allowPrivate: false, resolve: resolveTo('93.184.216.34') };
    expect(await checkWebhookUrl('ftp://example.com/hook', publicDns)).toMatchObject({ ok: false, problem: expect.stringMatching(/http and https/) as string });
    expect(await checkWebhookUrl('https://user:pw@example.com/hook', publicDns)).toMatchObject({ ok: false, problem: expect.stringMatching(/user name or password/) as string });
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
    expect(await checkWebhookUrl('http://127.0.0.1:9999/hook', { allowPrivate: true })).toMatchObject({ ok: true, address: { address: '127.0.0.1', family: 4 } });
  });
});

describe('webhook retries', () => {
  it('retries timeouts, 5xx and 429, never other 4xx', () => {
    expect([undefined, 500, 503, 429].map(verdictOf)).toEqual(['retry', 'retry', 'retry', 'retry']);
    expect([400, 401, 404, 410, 301].map(verdictOf)).toEqual(['final', 'final', 'final', 'final', 'final']);
    expect(verdictOf(204)).toBe('delivered');
  });

  it('backs off exponentially from 10 s, capped at an hour', () => {
    expect([1, 2, 3, 4, 5].map(backoffMs)).toEqual([10_000, 20_000, 40_000, 80_000, 160_000]);
    expect(backoffMs(30)).toBe(3_600_000);
  });

  it('waits at least as long as Retry-After asks (seconds or a date)', () => {
    const now = 1_000_000;
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(new Date(now + 90_000).toUTCString(), now)).toBeGreaterThanOrEqual(89_000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(nextAttemptAt({ attempts: 1, queuedAt: now, nowMs: now, retryAfter: 120_000 })).toBe(now + 120_000);
    expect(nextAttemptAt({ attempts: 1, queuedAt: now, nowMs: now, retryAfter: 1_000 })).toBe(now + FIRST_RETRY_MS);
  });

  it('gives up once the next try would fall past 24 hours after the event was queued', () => {
    const queuedAt = 0;
    expect(nextAttemptAt({ attempts: 40, queuedAt, nowMs: RETRY_FOR_MS - 3_600_000 })).toBe(RETRY_FOR_MS);
    expect(nextAttemptAt({ attempts: 40, queuedAt, nowMs: RETRY_FOR_MS - 1_000 })).toBeNull();
  });
});

describe('webhook payloads', () => {
  it('sends the JSON event exactly as the issue states it', () => {
    expect(jsonEvent(event, PUBLIC)).toEqual({
      id: 'op-1:failed:1',
      type: 'operation.failed',
      occurred_at: '2026-11-26T01:00:00.000Z',
      project: { id: 'proj-1', name: 'billing <prod>' },
      operation: event.operation,
      url: 'https://console.example.com/projects/proj-1/operations/op-1',
    });
    expect(Object.keys(JSON.parse(renderBody('json', event, PUBLIC)) as object)).toEqual(['id', 'type', 'occurred_at', 'project', 'operation', 'url']);
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
