import { createSeal } from '../../../server/seal/seal';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createRevokedSessions } from '../../../server/session/revoked-sessions';
import { createSessions, OPENED_CACHE_ENTRIES, type SessionRead } from '../../../server/session/sessions';

// A session's cookie is opened (AES-GCM, JSON, zod) once and kept by its value, bounded: under load every
// request of a signed-in page or proxied read used to decrypt it again (bench/load.ts). What the cookie says is
// kept; expiry and sign-out are still checked on every read.

const SECRET = 'sessions-cache-test-secret-000000000000';

/** A request on loopback (the plain cookie name) carrying `cookie`. */
function request(cookie: string): IncomingMessage {
  return { headers: { host: '127.0.0.1:5314', cookie }, socket: {} } as unknown as IncomingMessage;
}

function cookieOf(setCookie: string): string {
  return setCookie.split(';')[0]!;
}

function openSession(read: SessionRead) {
  if (read.state !== 'open') throw new Error(`expected an open session, got ${read.state}`);
  return read.session;
}

describe('reading a session cookie', () => {
  it('opens a cookie once: the same session comes back for the same value', () => {
    const sessions = createSessions({ seal: createSeal(SECRET) });
    const { cookie } = sessions.start(request(''), 'key-one', 'personal', false);

    const first = openSession(sessions.read(request(cookieOf(cookie))));
    const second = openSession(sessions.read(request(cookieOf(cookie))));

    expect(second).toBe(first);
    expect(second.key).toBe('key-one');
    expect(sessions.describe(second)).toEqual(sessions.describe(first));
  });

  it('still ends a kept session when it expires', () => {
    let now = 1_000_000;
    const sessions = createSessions({ seal: createSeal(SECRET), now: () => now });
    const { cookie, session } = sessions.start(request(''), 'key-two', 'personal', false);
    expect(sessions.read(request(cookieOf(cookie))).state).toBe('open');

    now = session.exp;

    expect(sessions.read(request(cookieOf(cookie)))).toMatchObject({ state: 'ended', why: 'expired' });
  });

  it('still ends a kept session signed out on this instance', () => {
    const revoked = createRevokedSessions();
    const sessions = createSessions({ seal: createSeal(SECRET), revoked });
    const { cookie } = sessions.start(request(''), 'key-three', 'personal', false);
    const req = request(cookieOf(cookie));
    expect(sessions.read(req).state).toBe('open');

    sessions.end(req);

    expect(sessions.read(req)).toMatchObject({ state: 'ended', why: 'signed-out' });
  });

  it('keeps a bounded number of cookies, the oldest going first', () => {
    const sessions = createSessions({ seal: createSeal(SECRET) });
    const cookies = Array.from({ length: OPENED_CACHE_ENTRIES + 1 }, (_, i) => cookieOf(sessions.start(request(''), `key-${i}`, 'personal', false).cookie));
    const oldest = openSession(sessions.read(request(cookies[0]!)));
    const newest = openSession(sessions.read(request(cookies[1]!)));
    for (const cookie of cookies.slice(2)) sessions.read(request(cookie));

    // The first was pushed out by the last and is opened anew; the second is still kept.
    expect(openSession(sessions.read(request(cookies[0]!)))).not.toBe(oldest);
    expect(openSession(sessions.read(request(cookies[0]!))).key).toBe('key-0');
    expect(openSession(sessions.read(request(cookies[2]!))).key).toBe('key-2');
    expect(newest.key).toBe('key-1');
  });
});
