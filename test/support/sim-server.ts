import { setupServer, type SetupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { fakeClock, type FakeClock } from '../../sim/clock';
import { createControlPlane, type ControlPlane } from '../../sim/control-plane';
import { createHandlers } from '../../sim/handlers';
import type { RateLimits } from '../../sim/rate-limiter';
import { seedDemo, seedEmpty, type DemoSeed, type EmptySeed } from '../../sim/seed';
import { archiveRoutes, createArchiveStandIn, type ArchiveStandIn } from './archive-server';
import { endSession, serveSameOrigin, sessionRoutes } from './console-server';

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
}

export interface SimServer<S extends EmptySeed> {
  readonly cp: ControlPlane;
  readonly clock: FakeClock;
  readonly server: SetupServer;
  readonly apiKey: string;
  readonly seed: S;
  /** The console server's /archive routes (test/support/archive-server.ts): nothing kept unless a test keeps it. */
  readonly archive: ArchiveStandIn;
}

const DEFAULT_START = new Date('2026-11-22T12:00:00Z');

/**
 * Call at the top level of a test file. Each test gets a fresh clock, control plane and seed (rebuilt in
 * beforeEach, so read them through the returned object's getters, never destructure at the top level).
 */
export function setupSimServer(options?: SimServerOptions & { seed?: 'demo' }): SimServer<DemoSeed>;
export function setupSimServer(options: SimServerOptions & { seed: 'empty' }): SimServer<EmptySeed>;
export function setupSimServer(options: SimServerOptions = {}): SimServer<EmptySeed> {
  let current: { cp: ControlPlane; clock: FakeClock; seed: EmptySeed; archive: ArchiveStandIn } | undefined;
  const server = setupServer();

  function build() {
    const clock = fakeClock(options.start ?? DEFAULT_START);
    const cp = createControlPlane({ clock, failureRate: options.failureRate ?? 0 });
    const seedOptions = options.apiKey === undefined ? {} : { apiKey: options.apiKey };
    const seed = options.seed === 'empty' ? seedEmpty(cp, seedOptions) : seedDemo(cp, seedOptions);
    return { cp, clock, seed, archive: createArchiveStandIn() };
  }

  let unwrap: () => void = () => undefined;
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'error' });
    // After MSW patched fetch: the page's relative requests go through the console server's stand-in, then MSW.
    unwrap = serveSameOrigin();
  });
  beforeEach(() => {
    current = build();
    // Replaces the base handlers, so `resetHandlers()` after a test drops only that test's overrides.
    const built = current;
    server.resetHandlers(
      ...sessionRoutes(),
      ...archiveRoutes(() => built.cp, built.archive),
      ...createHandlers(current.cp, { rateLimits: options.rateLimits ?? false }),
    );
  });
  afterEach(() => {
    server.resetHandlers();
    endSession();
  });
  afterAll(() => {
    unwrap();
    server.close();
  });

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
    get archive() {
      return state().archive;
    },
  };
}
