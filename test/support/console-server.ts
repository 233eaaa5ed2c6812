// The component tests' console server is the real one (server/): started once per test file through the one
// composition root (startServer), on 127.0.0.1 and a free port, with the test's simulator as its API backend:
// each call the server makes to the API goes through MSW, so the test's handlers and its `server.use(...)`
// overrides answer it, on the test's simulated clock. The page's same-origin requests reach the server with a
// cookie jar kept here, as a browser keeps one (Set-Cookie in, Cookie out): the server adds the session's key
// to /api/v2 and ends the session on the API's 401, as in production; /session, /archive and /notifications
// are its own routes, on its own store.
//
// The server runs in the test's process and so on the console's fake clock when a test puts one on
// (test/support/fake-clock.ts): with shouldAdvanceTime its timers go on with real time. A timer it sets while
// a fake clock is on is dropped when the test puts real timers back: the collector's waits end anyway (emptying
// the store between tests wakes it), and the notifications' loop stops for the rest of the file (no file that
// puts a fake clock on needs it afterwards). A frozen clock holds the server's timers as it holds the page's.
import type { IncomingMessage } from 'node:http';
import { rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { KeyKind, PageSession } from '../../src/api/page-data';
import type { ApiFetch } from '../../server/http/node-bridge';
import { API_PREFIX } from '../../server/http/paths';
import { startServer, type RunningServer } from '../../server/process/compose';
import type { ApiBackend } from '../../server/proxy/api-backend';
import { createSeal, type Seal } from '../../server/seal/seal';
import { SESSION_TTL_MS } from '../../server/session/session-cookie';
import { createSessions } from '../../server/session/sessions';
import { STORE_DIR } from '../../server/store';
import type { Db } from '../../server/store/db';
import { copyMigratedStore, pgliteDataDir } from './pglite-template';
import { testTempDir } from './test-tmp';

/** The tests' SESSION_SECRET: the server seals its cookies with it, and so does holdSession. */
export const TEST_SESSION_SECRET = 'component-tests-session-secret-not-for-production';

/** Where the server's calls to the API go (answered by the test's MSW handlers; nothing listens there). */
export const SIM_ORIGIN = 'http://sim.test';

const seal = createSeal(TEST_SESSION_SECRET);
/** The server's seal (its SESSION_SECRET is the tests'): what a test writes to the store sealed, the server opens. */
export const serverSeal: Seal = seal;
// Real time and timers, whatever a test does with the console's clock (test/support/fake-clock.ts): the
// server's sessions read the real clock, captured when they were made.
const realNow = Date.now;
const realSetTimeout = globalThis.setTimeout;
const sessions = createSessions({ seal, now: () => realNow() });
/** A request as the page sends one to the server: over loopback, so the cookie is the `__Host-` one. */
const fromPage = (cookie?: string) =>
  ({ headers: { host: '127.0.0.1', ...(cookie === undefined ? {} : { cookie }) }, socket: {} }) as unknown as IncomingMessage;

// The browser's cookie jar for the console's origin: name → value. Each test has a browser of its own: an
// answer to a request the previous test's page sent (a sign-out that took its time) never touches this one's.
const jar = new Map<string, string>();
let browser = 0;

/** Whether a Set-Cookie header tells the browser to drop the cookie. */
function expires(setCookie: string): boolean {
  const [pair = '', ...attributes] = setCookie.split(';').map((part) => part.trim());
  const expiry = attributes.find((attribute) => /^expires=/i.test(attribute));
  return (
    pair.endsWith('=') || attributes.some((attribute) => /^max-age=0$/i.test(attribute)) || (expiry !== undefined && Date.parse(expiry.slice(8)) <= realNow())
  );
}

function keepCookie(setCookie: string): void {
  const pair = setCookie.split(';')[0]?.trim() ?? '';
  const eq = pair.indexOf('=');
  if (eq <= 0) return;
  if (expires(setCookie)) jar.delete(pair.slice(0, eq));
  else jar.set(pair.slice(0, eq), pair.slice(eq + 1));
}

function cookieHeader(): string | undefined {
  return jar.size === 0 ? undefined : [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
}

/** The key fingerprint the server gives the page for `key` (an HMAC under the tests' secret). */
export function fingerprintOf(key: string): string {
  return seal.fingerprint(key);
}

/**
 * Opens a session on the console server, as signing in would: a session cookie sealed under the server's
 * secret goes into the jar. Returns what the page's data block would say about it (the server's own describe).
 */
export function holdSession(key: string, kind: KeyKind = 'personal'): PageSession {
  const { session, cookie } = sessions.start(fromPage(), key, kind, false);
  keepCookie(cookie);
  return sessions.describe(session);
}

/**
 * A session cookie sealed under a secret this server does not have, as one made before a restart that made a
 * new secret: the page is told it is signed in, and the server says the session ended with its restart.
 */
export function holdSessionFromBeforeRestart(key: string): PageSession {
  const before = createSessions({ seal: createSeal('a secret the console server no longer has, since its restart'), now: () => realNow() });
  const { session, cookie } = before.start(fromPage(), key, 'personal', false);
  keepCookie(cookie);
  return sessions.describe(session);
}

/** Replaces the held session's cookie with one for the same key whose session is over (its expiry passed). */
export function expireSession(): void {
  const key = heldKey();
  if (key === null) throw new Error('expireSession: no session is held');
  const over = createSessions({ seal, now: () => realNow() - SESSION_TTL_MS - 60_000 });
  keepCookie(over.start(fromPage(), key, 'personal', false).cookie);
}

/** The key of the session the jar's cookie opens on the server, or null (signed out, ended, or none). */
export function heldKey(): string | null {
  const current = sessions.read(fromPage(cookieHeader()));
  return current.state === 'open' ? current.session.key : null;
}

/** A new browser, without the console's cookies (between tests). */
export function forgetCookies(): void {
  jar.clear();
  browser++;
}

// What a test hears of the page's requests to the server, for the current test (cleared after it).
const requestListeners = new Set<(request: Request) => void>();
const responseListeners = new Set<(request: Request, response: Response) => void>();

/** Calls `listener` with each request the page sends to the console server, as it goes out (until the test ends). */
export function onPageRequest(listener: (request: Request) => void): void {
  requestListeners.add(listener);
}

/** Calls `listener` with each answer the page gets from the console server (until the test ends). */
export function onPageResponse(listener: (request: Request, response: Response) => void): void {
  responseListeners.add(listener);
}

export function forgetPageListeners(): void {
  requestListeners.clear();
  responseListeners.clear();
}

/**
 * Wraps fetch so the page's relative URLs go to the console server at `origin` with the jar's cookies, and a
 * write carries the Origin and Sec-Fetch-Site a browser sends with it; returns the function that unwraps it.
 * The console's own routes (/session, /archive, /notifications) go through MSW (`fetch` as MSW patched it),
 * which passes them on unless a test overrides one (a store that cannot answer, say); /api/v2 goes to the server
 * with `fetchDirect`: a test's override of the API answers the server's call to it, never the page's request
 * (so the server adds the key, and ends the session on a 401, as it does), and the page's polls of the API do
 * not pay MSW's copies of every request and answer (2.5 ms each for a page of 100 operations, measured).
 */
export function serveSameOrigin(origin: string, fetchDirect: typeof fetch): () => void {
  const intercepted = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    if (typeof input !== 'string' || !input.startsWith('/')) return intercepted(input, init);
    const url = new URL(input, origin);
    const headers = new Headers(init?.headers);
    const cookie = cookieHeader();
    if (cookie !== undefined) headers.set('cookie', cookie);
    const method = (init?.method ?? 'GET').toUpperCase();
    const write = method !== 'GET' && method !== 'HEAD';
    if (write) {
      headers.set('origin', origin);
      headers.set('sec-fetch-site', 'same-origin');
    }
    const heard =
      requestListeners.size + responseListeners.size > 0 ? new Request(url, { method, headers, body: write ? (init?.body ?? null) : null }) : undefined;
    if (heard) for (const listener of requestListeners) listener(heard);
    const sentBy = browser;
    const response = await (url.pathname === API_PREFIX || url.pathname.startsWith(`${API_PREFIX}/`) ? fetchDirect : intercepted)(url, { ...init, headers });
    if (sentBy === browser) for (const line of response.headers.getSetCookie()) keepCookie(line);
    if (heard) for (const listener of responseListeners) listener(heard, response);
    return response;
  };
  return () => {
    globalThis.fetch = intercepted;
  };
}

/**
 * The test's simulator as the server's API backend: each call sent to SIM_ORIGIN through `fetchApi` (MSW's
 * fetch), so the handlers of the test answer it; no answer at all (HttpResponse.error()) is Response.error(),
 * a dropped connection, as the in-process simulator gives it.
 */
export function simulatorThroughMsw(fetchApi: typeof fetch): ApiBackend {
  const send: ApiFetch = async ({ method, target, headers, body, signal }) => {
    const withBody = method !== 'GET' && method !== 'HEAD' && body !== undefined && body.byteLength > 0;
    try {
      return await fetchApi(new URL(target, SIM_ORIGIN), { method, headers, body: withBody ? body : null, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (signal?.aborted) throw error;
      return Response.error();
    }
  };
  return { fetch: send, banner: ['Mode: the component tests’ simulator (through MSW)'] };
}

/** A request of the test's own to the console server, with the browser's cookies (MSW does not see it: it is not the page's). */
async function sendDirect(fetchDirect: typeof fetch, origin: string, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const cookie = cookieHeader();
  if (cookie !== undefined) headers.set('cookie', cookie);
  headers.set('accept', 'application/json');
  const method = (init.method ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') headers.set('origin', origin);
  const sentBy = browser;
  const response = await fetchDirect(`${origin}${path}`, { ...init, headers });
  if (sentBy === browser) for (const line of response.headers.getSetCookie()) keepCookie(line);
  return response;
}

export interface ConsoleServerOptions {
  /**
   * A migrated PGlite store in DATA_DIR, opened at start: for the archive and notifications. Without it DATA_DIR
   * is empty and the store never opens while the tests run: PGlite's first start (initdb) costs seconds of CPU.
   */
  store: boolean;
  /** More of the server's environment (WEBHOOK_ALLOW_PRIVATE, say). */
  env?: Record<string, string>;
  backend: ApiBackend;
  /** Fetch as it was before MSW: the test's own requests (`request`) reach the server unseen by MSW. */
  fetchDirect: typeof fetch;
}

export interface ConsoleServer {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  readonly running: RunningServer;
  /** What the server printed (its banner) and logged. */
  readonly printed: string[];
  readonly logged: string[];
  /** A request of the test's own (not the page's: MSW does not see it), with the browser's cookies. */
  request: (path: string, init?: RequestInit) => Promise<Response>;
  /** The server's store (opened if it was not): to arrange rows through the store's own modules. */
  db: () => Promise<Db>;
  /** Resolves once the server answers no request (at most a second): a page unmounted by one test may have left some. */
  idle: () => Promise<void>;
  /** Empties the archive's and the notifications' tables, if the store was opened, so no test sees another's rows. */
  resetStore: () => Promise<void>;
  stop: () => Promise<void>;
}

const HTML = '<!doctype html><html><head><title>Ops Console</title></head><body><div id="root"><!--app-html--></div></body></html>';

// Every table the archive and notifications write (not schema_migrations, the sign-outs, or the dispatcher's cursor).
const TEST_TABLES =
  'archive_sources, archive_projects, operations, operation_day_figures, operation_day_queues, operation_day_project_figures, operation_day_project_queues, operation_month_project_figures, operation_month_project_queues, operation_counts, operation_project_counts, operation_transitions, notify_webhooks, notify_watches, notify_deliveries';

const IDLE_WAIT_MS = 1_000;

export async function startConsoleServer({ store, env = {}, backend, fetchDirect }: ConsoleServerOptions): Promise<ConsoleServer> {
  const dataDir = store ? await pgliteDataDir() : await testTempDir('ops-console-data-');
  const printed: string[] = [];
  const logged: string[] = [];
  const running = await startServer({
    mode: 'production',
    env: {
      HOST: '127.0.0.1',
      PORT: '0',
      SESSION_SECRET: TEST_SESSION_SECRET,
      DATA_DIR: dataDir,
      // A quick collector: the most requests a minute it may send (a backfill of the demo world takes about a
      // second), a busy project read again every second, an idle one every 6 s. A file that needs what the API
      // stopped listing to be found soon sets ARCHIVE_FULL_READ_MS (a whole read of every project, default hourly).
      ARCHIVE_BUDGET: '700',
      ARCHIVE_INTERVAL_MS: '1000',
      ...env,
    },
    print: (line) => void printed.push(line),
    log: (line) => void logged.push(line),
    // No pages or files are asked for: the test renders the page.
    serving: () => Promise.resolve({ template: { html: () => Promise.resolve(HTML) }, assets: (_req, _res, next) => next() }),
    backend,
    // Without a store given, none is made at start (PGlite's initdb, seconds of CPU per file): only if a test needs one.
    openStoreAtStart: store,
  });
  const origin = running.url.replace(/\/$/, '');

  // What the server is answering, and whether it has ended a session (its answer expired the cookie).
  let answering = 0;
  let endedSessions = false;
  let quiet: (() => void)[] = [];
  running.server.on('request', (_req, res) => {
    answering++;
    res.once('close', () => {
      const cookies = res.getHeader('set-cookie');
      if ((Array.isArray(cookies) ? cookies : [String(cookies ?? '')]).some((cookie) => cookie !== '' && expires(cookie))) endedSessions = true;
      answering--;
      if (answering === 0) for (const resolve of quiet.splice(0)) resolve();
    });
  });
  const idle = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    if (answering === 0) return;
    await new Promise<void>((resolve) => {
      quiet.push(resolve);
      realSetTimeout(resolve, IDLE_WAIT_MS);
    });
    quiet = [];
  };

  const resetStore = async () => {
    const db = running.store.opened();
    if (!db) return;
    await db.query(`TRUNCATE ${TEST_TABLES}`);
    // The collector drops the readers of sources that are gone, and says so once they have stopped (a reader
    // between a page's read and its write writes it after the first TRUNCATE): what they wrote is cleared again.
    await running.leader.wake();
    await db.query(`TRUNCATE ${TEST_TABLES}`);
  };

  return {
    origin,
    running,
    printed,
    logged,
    request: (path, init) => sendDirect(fetchDirect, origin, path, init),
    db: () => running.store.db(),
    idle,
    resetStore,
    async stop() {
      running.server.closeAllConnections();
      const opened = !store && (existsSync(path.join(dataDir, STORE_DIR)) || existsSync(path.join(dataDir, `${STORE_DIR}.making`)));
      // A sign-out (or the API's 401) the server has not written yet is written to its store as it stops
      // (server/session/stored-revocations.ts): a store that was never opened would be made then, PGlite's
      // first start, seconds of CPU. Given a migrated one, as a folder that has served before holds, it opens in
      // a fraction of a second.
      if (!store && endedSessions && !opened && !running.store.opened()) await copyMigratedStore(dataDir);
      await running.stop();
      await rm(dataDir, { recursive: true, force: true });
      // A file given no store made the server open one while it ran (an archive or notifications route).
      if (opened) throw new Error('The console server opened its store in a file given none: setupSimServer({ store: true }) gives it a migrated one.');
    },
  };
}
