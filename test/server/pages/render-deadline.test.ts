import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScreenRender } from '../../../src/entry-server';
import { RENDER_FINISH_MS, type PageRenderer } from '../../../server/pages/page';
import { OVERLOADED_WAITING, type TurnBudget } from '../../../server/http/turn-budget';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';

// The render deadline is for the screen's data (a slow API), not for the render's own CPU time once the
// data is in: on a busy machine a render whose data arrived in time used to be cut off at the deadline,
// and the browser then fetched and rendered everything itself, a second later (docs/rendering.md). The page still
// goes out as the shell if the render runs on past the deadline by RENDER_FINISH_MS, and at once at the
// deadline when the render took the process's last slot (an overloaded server sheds render work).

const KEY = 'render-deadline-key-0000000000000';
const DEADLINE_MS = 100;
const RENDERED: ScreenRender = { kind: 'rendered', html: '<main>rendered</main>', queries: { queries: [], mutations: [] }, renderedAt: 1 };

type Plan = (signal: AbortSignal, dataDeadline: AbortSignal) => Promise<ScreenRender>;

/** Data in at once, then rendering for twice the deadline (well inside RENDER_FINISH_MS past it). */
const slowRender: Plan = () => new Promise((resolve) => setTimeout(() => resolve(RENDERED), 2 * DEADLINE_MS));

async function signedInPage(server: TestServer): Promise<string> {
  const signIn = await server.request({
    method: 'POST',
    path: '/session',
    headers: { 'content-type': 'application/json', accept: 'application/json', origin: `http://127.0.0.1:${server.port}` },
    body: JSON.stringify({ key: KEY }),
  });
  expect(signIn.status, signIn.body).toBe(200);
  const cookie = signIn.headers['set-cookie']![0]!.split(';')[0]!;
  return (await server.request({ path: '/?p=1', headers: { cookie, accept: 'text/html' } })).body;
}

function startWith(plan: () => Plan, maxRenders: number): Promise<TestServer> {
  const render: PageRenderer = ({ session }) =>
    Promise.resolve(session ? { headTags: '', render: (signal, dataDeadline) => plan()(signal, dataDeadline) } : null);
  return startTestServer({ SIM_API_KEY: KEY }, { render, renderDeadlineMs: DEADLINE_MS, maxRenders });
}

afterAll(() => removeTestClientDir());

describe('the render deadline', () => {
  let server: TestServer;
  let plan: Plan = slowRender;

  beforeAll(async () => {
    expect(2 * DEADLINE_MS).toBeLessThan(DEADLINE_MS + RENDER_FINISH_MS);
    server = await startWith(() => plan, 4);
  });
  afterAll(() => server.stop());

  it('waits past the deadline for a render whose data was in: the page goes out rendered', async () => {
    plan = slowRender;

    const body = await signedInPage(server);

    expect(body).toContain('<div id="root"><main>rendered</main></div>');
  });

  it('gives up on the data at the deadline: the render is told, and its "unavailable" sends the shell', async () => {
    let told = false;
    plan = (_signal, dataDeadline) =>
      new Promise((resolve) =>
        dataDeadline.addEventListener(
          'abort',
          () => {
            told = true;
            resolve({ kind: 'unavailable', problem: 'late' });
          },
          { once: true },
        ),
      );

    const body = await signedInPage(server);

    expect(told).toBe(true);
    expect(body).toContain('<div id="root"></div>');
    expect(body).not.toContain('"renderedAt"');
  });

  it('sends the shell when the render runs on too long past the deadline', async () => {
    plan = () => new Promise<ScreenRender>(() => undefined);

    const body = await signedInPage(server);

    expect(body).toContain('<div id="root"></div>');
    expect(body).not.toContain('"renderedAt"');
  });
});

describe('the render deadline at the render cap', () => {
  let server: TestServer;
  beforeAll(async () => {
    // One slot: every render takes the last one, as each does on an overloaded server.
    server = await startWith(() => slowRender, 1);
  });
  afterAll(() => server.stop());

  it('sheds the render at the deadline: no time past it when the render took the last slot', async () => {
    const body = await signedInPage(server);

    expect(body).toContain('<div id="root"></div>');
    expect(body).not.toContain('"renderedAt"');
  });
});

describe('a page asked for while requests wait for the CPU', () => {
  let server: TestServer;
  let rendersStarted = 0;
  let waiting = 0;
  beforeAll(async () => {
    // Every request starts at once; `waiting` says how many the process has holding for a turn.
    const turns: TurnBudget = {
      admit: (start) => start(),
      get waiting() {
        return waiting;
      },
    };
    const render: PageRenderer = ({ session }) =>
      Promise.resolve(
        session
          ? {
              headTags: '',
              render: () => {
                rendersStarted++;
                return Promise.resolve(RENDERED);
              },
            }
          : null,
      );
    server = await startTestServer({ SIM_API_KEY: KEY }, { render, renderDeadlineMs: DEADLINE_MS, maxRenders: 4, turns });
  });
  afterAll(() => server.stop());

  it('goes out as the shell at once, no render started, once enough requests wait', async () => {
    waiting = OVERLOADED_WAITING;

    const body = await signedInPage(server);

    expect(body).toContain('<div id="root"></div>');
    expect(body).not.toContain('"renderedAt"');
    expect(rendersStarted).toBe(0);
  });

  it('comes rendered again when fewer wait', async () => {
    waiting = OVERLOADED_WAITING - 1;

    const body = await signedInPage(server);

    expect(body).toContain('<div id="root"><main>rendered</main></div>');
    expect(rendersStarted).toBe(1);
  });
});
