import { createHash } from 'node:crypto';
import { http, HttpResponse, type RequestHandler } from 'msw';
import type { PageSession } from '../../src/api/page-data';
import { KEY_REJECTED_MESSAGE, SESSION_PATH, SIGN_OUT_PATH } from '../../src/config/session';
import { keyFormatProblem } from '../../src/features/session/key-format';

// The component tests' stand-in for the console's server (server/): the page's same-origin requests are
// resolved against the test origin, the held session's key is added as Authorization to /api/v2 (as the
// server does), a 401 ends the session, and POST /session and /session/sign-out behave like the real
// routes. The real server's own behaviour is tested in test/server/ and the browser tests.

const ORIGIN = 'http://localhost';

const held: { key: string | null } = { key: null };

export function fakeFingerprint(key: string): string {
  return createHash('sha256').update(`test-fingerprint:${key}`).digest('base64url').slice(0, 32);
}

/** The session the page would be told about after signing in with `key`. */
export function signedInSession(key: string): PageSession {
  return { signedIn: true, fingerprint: fakeFingerprint(key), keyKind: 'personal', remembered: false };
}

/** Opens a session on the fake server, as signing in would; returns what the page's data block would say. */
export function holdSession(key: string): PageSession {
  held.key = key;
  return signedInSession(key);
}

export function heldKey(): string | null {
  return held.key;
}

export function endSession(): void {
  held.key = null;
}

async function checkKey(key: string): Promise<Response | null> {
  try {
    return await fetch(`${ORIGIN}/api/v2/auth`, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
  } catch {
    return null;
  }
}

/** The server's session routes, checking the key against the simulator's `/auth` (test overrides included). */
export function sessionRoutes(): RequestHandler[] {
  return [
    http.post(`*${SESSION_PATH}`, async ({ request }) => {
      const body = (await request.json().catch(() => null)) as { key?: unknown; remember?: unknown } | null;
      const key = typeof body?.key === 'string' ? body.key.trim() : '';
      const problem = keyFormatProblem(key);
      if (problem) return HttpResponse.json({ code: 'invalid', message: problem }, { status: 400 });
      const auth = await checkKey(key);
      if (!auth) {
        return HttpResponse.json({ code: 'unreachable', message: 'Could not reach the API at test: connection refused (ECONNREFUSED). The key was not checked.' }, { status: 502 });
      }
      if (auth.status === 401) return HttpResponse.json({ code: 'rejected', message: KEY_REJECTED_MESSAGE }, { status: 401 });
      if (!auth.ok) return HttpResponse.json({ code: 'server', message: `The API is having trouble (HTTP ${auth.status}), so the key was not checked. Try again in a moment.` }, { status: auth.status });
      return HttpResponse.json({ ...holdSession(key), remembered: body?.remember === true });
    }),
    http.post(`*${SIGN_OUT_PATH}`, () => {
      endSession();
      return HttpResponse.json({ signedIn: false, fingerprint: null, keyKind: null, remembered: false });
    }),
  ];
}

/**
 * Wraps the (MSW-intercepted) fetch so relative URLs reach the handlers and /api/v2 carries the held
 * key; returns the function that unwraps it.
 */
export function serveSameOrigin(): () => void {
  const intercepted = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    if (typeof input !== 'string' || !input.startsWith('/')) return intercepted(input, init);
    const url = new URL(input, ORIGIN);
    const headers = new Headers(init?.headers);
    const key = held.key;
    const withSession = url.pathname.startsWith('/api/v2') && !headers.has('authorization') && key !== null;
    if (withSession) headers.set('authorization', `Bearer ${key}`);
    const response = await intercepted(url, { ...init, headers });
    if (withSession && response.status === 401 && held.key === key) endSession();
    return response;
  };
  return () => {
    globalThis.fetch = intercepted;
  };
}
