import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { PageData } from '../../../src/api/page-data';
import type { ScreenRender } from '../../../src/entry-server';
import { servePage } from '../../../server/pages/page';
import { createRenderSlots } from '../../../server/pages/render-slots';
import { close, listen } from '../http-helpers';

// A page being rendered holds one of the process's render slots until it has gone out. A person who leaves
// while it is on its way (a closed tab; a load generator's connections closed at the end of a run) must give
// the slot back. Node drops the callback of a write to a connection it has already torn down but not yet
// reported closed, so the page waited for its head to leave forever: under load, 8 such departures per
// process left every later page as the shell, on a quiet server too, until a restart (found by the bench:
// 0 pages rendered after 20 s of load).

const TEMPLATE = '<!doctype html><html><head><title>t</title></head><body><div id="root"><!--app-html--></div></body></html>';
const DATA: PageData = { session: { signedIn: true, fingerprint: 'fp', keyKind: 'personal', remembered: false } };
const RENDERED: ScreenRender = { kind: 'rendered', html: '<main>rendered</main>', queries: { queries: [], mutations: [] }, renderedAt: 1 };

/** Settles with 'settled', or 'stuck' after `ms`. */
function within(promise: Promise<unknown>, ms: number): Promise<'settled' | 'stuck'> {
  return Promise.race([promise.then(() => 'settled' as const), new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), ms))]);
}

describe.each([
  ['uncompressed', undefined],
  ['gzip', 'gzip'],
  ['br', 'br'],
])('render slots (%s)', (_name, acceptEncoding) => {
  let server: http.Server | undefined;
  afterEach(async () => {
    if (server) await close(server);
    server = undefined;
  });

  /** Serves one page; `leave` runs once the page is to be rendered, before anything of it is written. */
  async function serveOne(leave: (req: http.IncomingMessage) => void): Promise<{ served: Promise<void>; slots: ReturnType<typeof createRenderSlots> }> {
    const slots = createRenderSlots(2);
    let served: Promise<void> | undefined;
    const handled = new Promise<void>((resolve) => {
      server = http.createServer((req, res) => {
        served = servePage(req, res, {
          template: { html: () => Promise.resolve(TEMPLATE) },
          data: DATA,
          session: null,
          fetchApi: () => Promise.reject(new Error('not called')),
          slots,
          render: () => {
            leave(req);
            return Promise.resolve({ headTags: '', render: () => Promise.resolve(RENDERED) });
          },
        });
        resolve();
      });
    });
    const port = await listen(server!);
    const request = http.get({ host: '127.0.0.1', port, path: '/projects/p', headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} });
    request.on('error', () => undefined);
    await handled;
    return { served: served!, slots };
  }

  it('are given back when the connection is torn down just before the page is written', async () => {
    const { served, slots } = await serveOne((req) => req.socket.destroy());

    expect(await within(served, 2_000)).toBe('settled');
    expect(slots.inUse).toBe(0);
  });

  it('are given back when the person leaves while the page is rendered', async () => {
    const { served, slots } = await serveOne((req) => setImmediate(() => req.socket.destroy()));

    expect(await within(served, 2_000)).toBe('settled');
    expect(slots.inUse).toBe(0);
  });
});
