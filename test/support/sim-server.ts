import { http, passthrough } from 'msw';
import { setupServer, type SetupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { fakeClock, type FakeClock } from '../../sim/clock';
import { createControlPlane, type ControlPlane } from '../../sim/control-plane';
import { createHandlers } from '../../sim/handlers';
import type { RateLimits } from '../../sim/rate-limiter';
import { seedDemo, seedEmpty, type DemoSeed, type EmptySeed } from '../../sim/seed';
import {
  forgetCookies,
  forgetPageListeners,
  onPageRequest,
  onPageResponse,
  serveSameOrigin,
  simulatorThroughMsw,
  startConsoleServer,
  type ConsoleServer,
} from './console-server';

export interface SimServerOptions {
  /** Fake clock start. Default 2026-11-22T12:00:00Z. */
  start?: Date | number;
  /** 'demo' (default) seeds the demo world; 'empty' only a user with a personal key. */
  seed?: 'demo' | 'empty';
  apiKey?: string;
  /** Default 0 here: a test that wants a failed operation asks for it (`addOperation({ fail: true })`). */
  failureRate?: number;
  /** Default off here: a frozen fake clock would count every request into the same second. */
  rateLimits?: RateLimits | false;
  /** Give the console server a migrated store, opened at start: for the archive and notifications. */
  store?: boolean;
  /** More of the console server's environment (ARCHIVE_INTERVAL_MS, say). */
  env?: Record<string, string>;
}

export interface SimServer<S extends EmptySeed> {
  readonly cp: ControlPlane;
  readonly clock: FakeClock;
  /**
   * MSW: the simulator's handlers answer the console server's calls to the API (a test's `server.use(...)`
   * overrides them), and the page's requests to the console's own routes (/session, /archive, /notifications)
   * are passed on to the server unless a test overrides one.
   */
  readonly server: SetupServer;
  readonly apiKey: string;
  readonly seed: S;
  /** The console's real server (started once per file). */
  readonly console: ConsoleServer;
  /** Calls `listener` with each request the page sends to the console server (until the test ends). */
  onPageRequest: (listener: (request: Request) => void) => void;
  /** Calls `listener` with each answer the page gets from the console server (until the test ends). */
  onPageResponse: (listener: (request: Request, response: Response) => void) => void;
}

const DEFAULT_START = new Date('2026-11-22T12:00:00Z');
// The console server's start (and a migrated store's copy) may take a few seconds on a busy machine.
const START_TIMEOUT_MS = 60_000;

/**
 * Call at the top level of a test file. Each test gets a fresh clock, control plane and seed (rebuilt in
 * beforeEach, so read them through the returned object's getters, never destructure at the top level); the
 * console server is started once for the file, its store emptied after each test and its cookies before each.
 */
export function setupSimServer(options?: SimServerOptions & { seed?: 'demo' }): SimServer<DemoSeed>;
export function setupSimServer(options: SimServerOptions & { seed: 'empty' }): SimServer<EmptySeed>;
export function setupSimServer(options: SimServerOptions = {}): SimServer<EmptySeed> {
  let current: { cp: ControlPlane; clock: FakeClock; seed: EmptySeed } | undefined;
  let consoleServer: ConsoleServer | undefined;
  const server = setupServer();

  function build() {
    const clock = fakeClock(options.start ?? DEFAULT_START);
    const cp = createControlPlane({ clock, failureRate: options.failureRate ?? 0 });
    const seedOptions = options.apiKey === undefined ? {} : { apiKey: options.apiKey };
    const seed = options.seed === 'empty' ? seedEmpty(cp, seedOptions) : seedDemo(cp, seedOptions);
    return { cp, clock, seed };
  }

  const running = () => {
    if (!consoleServer) throw new Error('setupSimServer: the console server is only available inside a test or a hook');
    return consoleServer;
  };

  let unwrap: () => void = () => undefined;
  beforeAll(async () => {
    const fetchDirect = globalThis.fetch;
    server.listen({ onUnhandledRequest: 'error' });
    // MSW's fetch, before the page's is wrapped: the server's calls to the API are answered by the handlers.
    consoleServer = await startConsoleServer({
      store: options.store ?? false,
      env: options.env ?? {},
      backend: simulatorThroughMsw(globalThis.fetch),
      fetchDirect,
    });
    unwrap = serveSameOrigin(consoleServer.origin, fetchDirect);
  }, START_TIMEOUT_MS);
  beforeEach(async () => {
    // What the previous test's page left in flight is answered by its own world, not this one; then a new
    // browser (the page was unmounted after the previous test: forgetting its cookies earlier would have had it
    // meet 401s and sign out).
    await consoleServer?.idle();
    forgetCookies();
    current = build();
    // Replaces the base handlers, so `resetHandlers()` after a test drops only that test's overrides.
    server.resetHandlers(
      http.all(`${running().origin}/*`, () => passthrough()),
      ...createHandlers(current.cp, { rateLimits: options.rateLimits ?? false }),
    );
  });
  afterEach(async () => {
    server.resetHandlers();
    forgetPageListeners();
    await consoleServer?.resetStore();
  });
  afterAll(async () => {
    unwrap();
    try {
      await consoleServer?.stop();
    } finally {
      server.close();
    }
  }, START_TIMEOUT_MS);

  const state = () => {
    if (!current) throw new Error('setupSimServer: the simulator is only available inside a test or a hook');
    return current;
  };
  return {
    get cp() {
      return state().cp;
    },
    get clock() {
      return state().clock;
    },
    server,
    get apiKey() {
      return state().seed.apiKey;
    },
    get seed() {
      return state().seed;
    },
    get console() {
      return running();
    },
    onPageRequest,
    onPageResponse,
  };
}
