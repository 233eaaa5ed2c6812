import { act, screen, within } from '@testing-library/react';
import { StrictMode } from 'react';
import { hydrateRoot, type Root } from 'react-dom/client';
import { renderToReadableStream } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parsePageData, serializePageData } from '../../src/api/page-data';
import { hydrateFromPage } from '../../src/api/rendered-queries';
import { sameOriginTransport } from '../../src/api/request';
import { App } from '../../src/app/app';
import { createAppState } from '../../src/app/app-state';
import { renderScreen } from '../../src/entry-server';
import { createRenderMemo, RENDER_REUSE_MS } from '../../server/render-memo';
import { holdSession } from '../support/console-server';
import { setupSimServer } from '../support/sim-server';

// The handover from the server to the browser, as main.tsx does it, with React's development build
// (which says what it finds different, attributes included): the screen rendered by entry-server, its
// data block read back, the cache hydrated, then hydrateRoot over the HTML.

const sim = setupSimServer({ start: Date.now() });

let requests: URL[] = [];
let root: Root | undefined;
beforeEach(() => {
  requests = [];
  sim.server.events.on('request:start', ({ request }) => void requests.push(new URL(request.url)));
});
afterEach(() => {
  vi.restoreAllMocks();
  sim.server.events.removeAllListeners();
  act(() => root?.unmount());
  root = undefined;
  document.body.replaceChildren();
});

async function serverRendered(url: string) {
  const session = holdSession(sim.apiKey);
  const rendered = await renderScreen({ url, session, transport: sameOriginTransport, signal: new AbortController().signal });
  if (rendered.kind !== 'rendered') throw new Error(`not rendered: ${rendered.kind}`);
  // The server renderer leaves its last context values in place until its next render (on a server it
  // runs alone); one empty render puts them back before the browser's renderer runs in this same process.
  await (await renderToReadableStream(null)).allReady;
  // Through the data block's own text, as the page carries it.
  const data = parsePageData(serializePageData({ session, queries: rendered.queries, renderedAt: rendered.renderedAt }));
  return { session, html: rendered.html, data };
}

async function hydrate(url: string) {
  const { session, html, data } = await serverRendered(url);
  const container = document.createElement('div');
  container.innerHTML = html;
  document.body.append(container);
  window.history.pushState({}, '', url);
  const state = createAppState({ session });
  hydrateFromPage(state.queryClient, data.queries!);
  requests = [];
  const recovered: unknown[] = [];
  const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  // What React says about the page (a hydration mismatch, say), not that this test runs its two renderers in one process.
  const logged = () => spy.mock.calls.map((call) => call.map(String).join(' ')).filter((line) => !line.startsWith('Detected multiple renderers'));
  await act(async () => {
    root = hydrateRoot(
      container,
      <StrictMode>
        <App state={state} renderedAt={data.renderedAt} />
      </StrictMode>,
      { onRecoverableError: (error) => void recovered.push(error) },
    );
    await Promise.resolve();
  });
  return { recovered, logged, state };
}

describe('a server-rendered page taken over by the browser', () => {
  it('hydrates a project’s history with nothing React has to fix, nor anything it warns about, and asks for none of its data again', async () => {
    const project = sim.cp.addProject({ name: 'Rendered on the server', ownerId: sim.seed.userId, compute: 'idle' });
    const start = sim.clock.now() - 3_600_000;
    for (let i = 0; i < 30; i++) {
      sim.cp.addOperation({ projectId: project.id, action: 'check_availability', status: 'finished', createdAt: start + i * 60_000 });
    }

    const { recovered, logged } = await hydrate(`/projects/${project.id}`);

    expect(recovered).toEqual([]);
    expect(logged()).toEqual([]);
    const table = await screen.findByRole('table', { name: /operations/i });
    // The server's 25 first rows, then the rest of the page once the browser renders it.
    expect(await within(table).findAllByRole('link', { name: 'Check availability' })).toHaveLength(30);
    expect(requests.map((url) => url.pathname)).toEqual([]);
  });

  it('hydrates the projects list of a personal key, organizations included, and restores the first page’s param', async () => {
    const { recovered, logged, state } = await hydrate('/');

    expect(recovered).toEqual([]);
    expect(logged()).toEqual([]);
    expect(await screen.findByLabelText('Organization')).toBeInTheDocument();
    // JSON has no undefined: the first page's param came back as null, and must be undefined again.
    const lists = state.queryClient.getQueryCache().findAll({ queryKey: ['projects', 'list'] });
    expect(lists.map((query) => (query.state.data as { pageParams: unknown[] }).pageParams)).toEqual([[undefined]]);
    expect(requests).toEqual([]);
  });
});

describe('a render the server reuses (server/render-memo.ts)', () => {
  async function render(url: string, memo: ReturnType<typeof createRenderMemo>, renderSlot?: { enter: () => boolean; leave: () => void }) {
    const rendered = await renderScreen({ url, session: holdSession(sim.apiKey), transport: sameOriginTransport, signal: new AbortController().signal, memo, renderSlot });
    await (await renderToReadableStream(null)).allReady;
    if (rendered.kind !== 'rendered') throw new Error(`not rendered: ${rendered.kind}`);
    return rendered;
  }

  it('gives the same page for the same data a moment later, still reads the data every time, and renders afresh once the data moves or the moment passes', async () => {
    const project = sim.cp.addProject({ name: 'Busy at once', ownerId: sim.seed.userId, compute: 'idle' });
    sim.cp.addOperation({ projectId: project.id, action: 'check_availability', status: 'finished', createdAt: sim.clock.now() - 60_000 });
    let now = 1_000_000;
    const memo = createRenderMemo({ now: () => now });
    const url = `/projects/${project.id}`;

    const first = await render(url, memo);
    requests = [];
    now += RENDER_REUSE_MS - 1;
    const second = await render(url, memo);
    // The second person's data was read from the API, and came back the same: the render made of it is reused.
    expect(requests.map((r) => r.pathname)).toContain(`/api/v2/projects/${project.id}/operations`);
    expect(second).toBe(first);

    // Another session description (an organization's key) is another page, never someone else's render.
    const scoped = await renderScreen({ url, session: { ...holdSession(sim.apiKey), keyKind: 'organization' }, transport: sameOriginTransport, signal: new AbortController().signal, memo });
    await (await renderToReadableStream(null)).allReady;
    expect(scoped).not.toBe(first);

    // A new operation: the page shows it, from a fresh render.
    const added = sim.cp.addOperation({ projectId: project.id, action: 'start_compute', status: 'running', createdAt: sim.clock.now() });
    const moved = await render(url, memo);
    expect(moved).not.toBe(first);
    expect(moved.html).toContain(`/operations/${added.id}"`);
    expect(first.html).not.toContain(`/operations/${added.id}"`);

    // The same data past the reuse window: rendered again, its relative times worked out anew.
    now += RENDER_REUSE_MS;
    const later = await render(url, memo);
    expect(later).not.toBe(moved);
    expect(later.html).toContain(`/operations/${added.id}"`);
  });
  it('renders no more at once than the process allows: past the cap a page is the shell, unless a kept render fits it', async () => {
    const project = sim.cp.addProject({ name: 'Many at once', ownerId: sim.seed.userId, compute: 'idle' });
    const url = `/projects/${project.id}`;
    const memo = createRenderMemo();
    const full = { enter: () => false, leave: () => undefined };
    const session = holdSession(sim.apiKey);
    const refused = await renderScreen({ url, session, transport: sameOriginTransport, signal: new AbortController().signal, memo, renderSlot: full });
    expect(refused).toEqual({ kind: 'unavailable', problem: 'The server is rendering as many pages as it can at once.' });

    let taken = 0;
    let entered = 0;
    const counted = {
      enter: () => {
        entered++;
        taken++;
        return true;
      },
      leave: () => {
        taken--;
      },
    };
    const rendered = await render(url, memo, counted);
    expect(rendered.html).toContain('Many at once');
    // One slot for the render, given back once it was done.
    expect([entered, taken]).toEqual([1, 0]);
    // The same data again: the kept render goes out though every slot is taken.
    expect(await render(url, memo, full)).toBe(rendered);
  });
});
