import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { crossSiteWriteProblem } from '../../../server/http/csrf';
import { createRevokedSessions } from '../../../server/session/revoked-sessions';
import { createSeal, FINGERPRINT_LENGTH, type SealPurpose } from '../../../server/seal/seal';
import { createSessionCrypto, type Session } from '../../../server/session/session-crypto';

const SECRET = 'a-session-secret-of-at-least-32-characters';
const NOW = Date.parse('2026-11-23T12:00:00Z');
const cookies = (secret: string | undefined) => createSessionCrypto(createSeal(secret));
const session = (exp = NOW + 60_000): Session => ({ key: 'napi_secret_key_123', kind: 'personal', sid: 'sid-1', remember: false, exp });

describe('the sealed session cookie (AES-256-GCM)', () => {
  it('opens what it sealed, and the value shows neither the key nor the same bytes twice', () => {
    const crypto = cookies(SECRET);
    const first = crypto.seal(session());
    const second = crypto.seal(session());

    expect(crypto.open(first, NOW)).toEqual(session());
    expect(first).toMatch(/^v1\.[\w-]+$/);
    expect(first).not.toContain('napi_secret_key_123');
    expect(Buffer.from(first.slice(3), 'base64url').toString('latin1')).not.toContain('napi');
    expect(second).not.toBe(first);
  });

  it('refuses a value with any byte changed', () => {
    const crypto = cookies(SECRET);
    const sealed = Buffer.from(crypto.seal(session()).slice(3), 'base64url');
    for (const at of [0, 11, 12, sealed.length - 17, sealed.length - 1]) {
      const tampered = Buffer.from(sealed);
      tampered[at] = (tampered[at] ?? 0) ^ 0x01;
      expect(crypto.open(`v1.${tampered.toString('base64url')}`, NOW), `byte ${at}`).toBeNull();
    }
    expect(crypto.open(`v1.${sealed.subarray(0, 20).toString('base64url')}`, NOW)).toBeNull();
    expect(crypto.open('v2.' + sealed.toString('base64url'), NOW)).toBeNull();
    expect(crypto.open('', NOW)).toBeNull();
  });

  it('refuses a value sealed under another secret, or under the random secret of another start', () => {
    const sealed = cookies(SECRET).seal(session());

    expect(cookies(`${SECRET}!`).open(sealed, NOW)).toBeNull();
    expect(cookies(undefined).open(sealed, NOW)).toBeNull();
    // The same secret on another instance opens it: sessions survive restarts and load balancing.
    expect(cookies(SECRET).open(sealed, NOW)).toEqual(session());
  });

  it('enforces the expiry inside the value, whatever the browser keeps', () => {
    const crypto = cookies(SECRET);
    const sealed = crypto.seal(session(NOW + 1_000));

    expect(crypto.open(sealed, NOW + 999)).not.toBeNull();
    expect(crypto.open(sealed, NOW + 1_000)).toBeNull();
  });

  it('fingerprints a key the same way under one secret, differently under another, and never as its plain hash', async () => {
    const seal = createSeal(SECRET);
    const { createHash } = await import('node:crypto');
    const plain = createHash('sha256').update('napi_secret_key_123').digest();

    expect(seal.fingerprint('napi_secret_key_123')).toBe(createSeal(SECRET).fingerprint('napi_secret_key_123'));
    expect(seal.fingerprint('napi_secret_key_123')).toHaveLength(FINGERPRINT_LENGTH);
    expect(seal.fingerprint('napi_secret_key_123')).not.toBe(seal.fingerprint('napi_secret_key_124'));
    expect(seal.fingerprint('napi_secret_key_123')).not.toBe(createSeal(`${SECRET}!`).fingerprint('napi_secret_key_123'));
    expect([plain.toString('hex'), plain.toString('base64url')].some((hash) => hash.startsWith(seal.fingerprint('napi_secret_key_123')))).toBe(false);
  });
});

describe('the one seal (AES-256-GCM, an HKDF label per purpose)', () => {
  const PURPOSES: SealPurpose[] = ['session-cookie', 'kept-key', 'webhook-secret', 'owner-key'];

  it('opens a value only as the purpose it was sealed for', () => {
    const seal = createSeal(SECRET);
    for (const sealedFor of PURPOSES) {
      const sealed = seal.seal(sealedFor, 'napi_secret_key_123');
      expect(sealed).not.toContain('napi');
      for (const openedAs of PURPOSES)
        expect(seal.open(openedAs, sealed), `${sealedFor} opened as ${openedAs}`).toBe(openedAs === sealedFor ? 'napi_secret_key_123' : null);
    }
  });

  it('still opens what the server sealed before its seals were one module: kept keys, webhook secrets, makers’ keys, cookies', () => {
    // Sealed under SECRET by the archive's, the notifications' and the session's own modules of commit 0d0ba0e.
    const seal = createSeal(SECRET);
    expect(seal.open('kept-key', 'v1.DK1DXlaf03BbwDZAlN7cngCbGwumgCHI0k4od1gViR7UEYmJZh0uqMHGjCD0')).toBe('napi_kept_key_000');
    expect(seal.open('webhook-secret', 'n1.1k27rWkA3HdC1SKQg-698SmnYoMHllcYqHop7Mv49gTVbOjXtg')).toBe('whsec_abc');
    expect(seal.open('owner-key', 'n1.XdzBpbdCF-KRh02CQEo1JcYrw2J1Pj0efVQPnzbcGzJDYPRWjMCq3y0ABXUsqQ')).toBe('napi_owner_key_000');
    const cookie =
      'v1.lJSMn-qzHiFLyt2ig9-0GFz75KixQTw8c9EDLdUyHTiF8gznWJqDodSgjXaQb-FJdJAETmZUSA-T4-IbVLlhvHtjN4N6sFMZD030E3Kt7Cf-31CCSZpY9Df-Vmsch17QNfZ0nEjfYOnDVEKffRXIp0XBLEy5pc2N4Jo1';
    expect(createSessionCrypto(seal).open(cookie, NOW)).toMatchObject({ key: 'napi_cookie_key_000', sid: 's1' });
    // The session's fingerprint of before is the one fingerprint now: the page's namespaces and webhooks' owners stay theirs.
    expect(seal.fingerprint('napi_cookie_key_000')).toBe('YMxxAdTyZHAhslEnf8xdC4GrCtjHVnqM');
  });
});

describe('sessions signed out on this instance', () => {
  it('are refused until they would have expired, and the list stays bounded', () => {
    let now = NOW;
    const revoked = createRevokedSessions(() => now, 3);
    revoked.revoke('a', NOW + 1_000);
    expect(revoked.isRevoked('a')).toBe(true);
    expect(revoked.reasonOf('a')).toBe('signed-out');
    // The API refused another session's key: that is its reason, and a sign-out after it does not change it.
    revoked.revoke('r', NOW + 1_000, 'rejected');
    revoked.revoke('r', NOW + 1_000);
    expect(revoked.reasonOf('r')).toBe('rejected');
    now = NOW + 1_000;
    expect(revoked.isRevoked('a')).toBe(false);

    for (const sid of ['b', 'c', 'd', 'e']) revoked.revoke(sid, NOW + 10_000 + sid.charCodeAt(0));
    expect(revoked.size()).toBe(3);
    // The one closest to its own expiry goes first.
    expect(revoked.isRevoked('b')).toBe(false);
    expect(['c', 'd', 'e'].every((sid) => revoked.isRevoked(sid))).toBe(true);
  });
});

function request(method: string, headers: Record<string, string>): IncomingMessage {
  return { method, headers: { host: 'console.example:5173', ...headers }, socket: {} } as unknown as IncomingMessage;
}

describe('the cross-site write rule', () => {
  it.each([
    ['GET from another site (a link)', 'GET', { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }, null],
    ['POST from the same origin', 'POST', { 'sec-fetch-site': 'same-origin', origin: 'http://console.example:5173' }, null],
    ['POST behind a TLS proxy (browser origin https)', 'POST', { origin: 'https://console.example:5173' }, null],
    ['POST from a client that is not a browser page (curl, neonctl)', 'POST', {}, null],
    ['POST typed by the user (Sec-Fetch-Site: none)', 'POST', { 'sec-fetch-site': 'none' }, null],
    ['POST from another site', 'POST', { 'sec-fetch-site': 'cross-site' }, /another site/],
    ['DELETE from a sibling host', 'DELETE', { 'sec-fetch-site': 'same-site' }, /another site/],
    ['PUT from a foreign Origin without Sec-Fetch-Site', 'PUT', { origin: 'https://evil.example' }, /another origin \(https:\/\/evil\.example\)/],
    ['PATCH from another port of the same host', 'PATCH', { origin: 'http://console.example:6000' }, /another origin/],
    ['POST from an opaque origin', 'POST', { origin: 'null' }, /an opaque origin/],
    ['POST from an opaque origin of another site (a sandboxed frame)', 'POST', { 'sec-fetch-site': 'cross-site', origin: 'null' }, /another site/],
    // What Chromium sends for a form on a page whose Referrer-Policy is no-referrer, as the console's is.
    [
      'a form post of our own page (Origin: null under no-referrer, Sec-Fetch-Site: same-origin)',
      'POST',
      { 'sec-fetch-site': 'same-origin', origin: 'null' },
      null,
    ],
  ])('%s', (_name, method, headers, expected) => {
    const problem = crossSiteWriteProblem(request(method, headers));
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toMatch(expected);
  });
});
