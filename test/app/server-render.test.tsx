import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { StrictMode } from 'react';
import { hydrateRoot, type Root } from 'react-dom/client';
import { renderToReadableStream } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parsePageData, serializePageData, SIGNED_OUT, type PageData } from '../../src/api/page-data';
import { hydrateFromPage } from '../../src/api/rendered-queries';
import { sameOriginTransport } from '../../src/api/request';
import { App } from '../../src/app/app';
import { createAppState } from '../../src/app/app-state';
import { filtersFromSearch, NO_FILTERS } from '../../src/model/filters';
import { AfterTakeover } from '../../src/app/mount-app';
import { noteEarlyEdits } from '../../src/app/early-edits';
import { setApiTarget } from '../../src/config/api-target';
import { renderKeyScreen, renderScreen, type ScreenRender } from '../../src/entry-server';
import { createRenderMemo, RENDER_REUSE_MS } from '../../server/pages/render-memo';
import { heldKey, holdSession } from '../support/console-server';
import { setupSimServer } from '../support/sim-server';

// The handover from the server to the browser, as main.tsx does it, with React's development build
// (which says what it finds different, attributes included): the screen rendered by entry-server, its
// data block read back, the cache hydrated, then hydrateRoot over the HTML.

const sim = setupSimServer({ start: Date.now() });

let requests: URL[] = [];
let root: Root | undefined;
beforeEach(() => {
  requests = [];
  sim.onPageRequest((request) => void requests.push(new URL(request.url)));
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  sim.server.events.removeAllListeners();
  act(() => root?.unmount());
  root = undefined;
  document.body.replaceChildren();
});

/** What the server sends for a page: its HTML, and its data block read back through the block's own text. */
interface SentPage {
  html: string;
  data: PageData;
}

async function asSent(page: PageData, rendered: ScreenRender): Promise<SentPage> {
  if (rendered.kind !== 'rendered') throw new Error(`not rendered: ${rendered.kind}`);
  // The server renderer leaves its last context values in place until its next render (on a server it
  // runs alone); one empty render puts them back before the browser's renderer runs in this same process.
  await (
    await renderToReadableStream(null)
  ).allReady;
  return { html: rendered.html, data: parsePageData(serializePageData({ ...page, queries: rendered.queries, renderedAt: rendered.renderedAt })) };
}

interface Takeover {
  /** What a person does on the server's HTML before React has arrived. */
  beforeTakeover?: (container: HTMLElement) => void;
  /** What mount-app.tsx runs once React has taken the page over. */
  afterTakeover?: () => void;
}

/** The browser's side, as main.tsx and mount-app.tsx do it: the state from the data block, the cache hydrated, then hydrateRoot over the HTML. */
async function takeOver(url: string, { html, data }: SentPage, { beforeTakeover = () => undefined, afterTakeover = () => undefined }: Takeover = {}) {
  const container = document.createElement('div');
  container.innerHTML = html;
  document.body.append(container);
  window.history.pushState({}, '', url);
  beforeTakeover(container);
  setApiTarget(data.apiUrl);
  const state = createAppState({ session: data.session, signInProblem: data.signIn?.problem, endedBecause: data.sessionEnded });
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
        <AfterTakeover then={afterTakeover}>
          <App state={state} renderedAt={data.renderedAt} />
        </AfterTakeover>
      </StrictMode>,
      { onRecoverableError: (error) => void recovered.push(error) },
    );
    await Promise.resolve();
  });
  return { recovered, logged, state };
}

/** A signed-in screen rendered by entry-server, then taken over. */
async function hydrate(url: string, takeover: Takeover = {}) {
  const session = holdSession(sim.apiKey);
  const sent = await asSent({ session }, await renderScreen({ url, session, transport: sameOriginTransport, signal: new AbortController().signal }));
  return takeOver(url, sent, takeover);
}

describe('a server-rendered page taken over by the browser', () => {
  it('hydrates a project’s history with nothing React has to fix, nor anything it warns about, and asks for none of its data again', async () => {
    // Taken over while its data is fresh, as a browser does a page it has just received: the clock the cache reads
    // stands still from the render to the checks (a machine busy with two CI runs took past the 10 s staleTime, and the
    // page rightly asked again). Timers still run.
    vi.useFakeTimers({ toFake: ['Date'] });
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
    // The no-script form's checkboxes became the popups once React took the page over.
    expect(screen.getByRole('button', { name: /^Status\b/ })).toHaveAttribute('aria-haspopup', 'listbox');
    expect(screen.queryByRole('checkbox', { name: 'Error' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Apply filters' })).toBeNull();
  });

  it('hydrates the projects list of a personal key, organizations included, and restores the first page’s param', async () => {
    const { recovered, logged, state } = await hydrate('/');

    expect(recovered).toEqual([]);
    expect(logged()).toEqual([]);
    expect(await screen.findByLabelText('Organization')).toBeInTheDocument();
    // JSON has no undefined: the first page's param came back as null, and must be undefined again.
    const lists = state.queryClient.getQueryCache().findAll({ queryKey: ['projects', 'list'] });
    expect(lists.map((query) => (query.state.data as { pageParams: unknown[] }).pageParams)).toEqual([[undefined]]);
    // Nothing it came with is asked again; the archive's figures for the list are the browser's to ask (docs/console.md).
    expect(requests.filter((url) => url.pathname !== '/archive/projects')).toEqual([]);
  });
});

describe('a project’s filters on a page read without script', () => {
  /** The server's HTML for `url`, as a browser without script shows it. */
  async function sentPage(url: string): Promise<HTMLElement> {
    const rendered = await renderScreen({ url, session: holdSession(sim.apiKey), transport: sameOriginTransport, signal: new AbortController().signal });
    await (
      await renderToReadableStream(null)
    ).allReady;
    if (rendered.kind !== 'rendered') throw new Error(`not rendered: ${rendered.kind}`);
    document.body.replaceChildren();
    const page = document.createElement('div');
    page.innerHTML = rendered.html;
    document.body.append(page);
    return page;
  }
  const shownActions = (page: HTMLElement) =>
    within(within(page).getByRole('table', { name: /operations/i }))
      .getAllByRole('row')
      .slice(1)
      .map((row) => within(row).getByRole('link', { name: /^(Apply config|Start compute|Create branch)$/ }).textContent);

  it('are a form that sends the address: Status and Action are checkboxes, and the address they send arrives filtered', async () => {
    const project = sim.cp.addProject({ name: 'Filtered without script', ownerId: sim.seed.userId, compute: false });
    const start = sim.clock.now() - 3_600_000;
    const shapes = [
      { status: 'finished', action: 'apply_config' },
      { status: 'failed', action: 'apply_config' },
      { status: 'error', action: 'start_compute' },
      { status: 'cancelled', action: 'create_branch' },
    ] as const;
    shapes.forEach((shape, i) => sim.cp.addOperation({ projectId: project.id, ...shape, createdAt: start + i * 60_000 }));
    const user = userEvent.setup();

    const page = await sentPage(`/projects/${project.id}?status=error`);
    expect(page.querySelector('select[multiple]')).toBeNull();
    expect(shownActions(page)).toEqual(['Start compute']);
    const form = within(page).getByRole('search', { name: 'Filter operations' });
    if (!(form instanceof HTMLFormElement)) throw new Error('the filters are not a form');
    expect([form.method, form.getAttribute('action')]).toEqual(['get', `/projects/${project.id}`]);

    // Each control opens its list of checkboxes: Status says what the address chose, Action says Any.
    await user.click(within(form).getByText('Error', { selector: '.multi-select__summary' }));
    expect(within(form).getByRole('checkbox', { name: 'Error' })).toBeChecked();
    await user.click(within(form).getByRole('checkbox', { name: 'Cancelled' }));
    await user.click(within(form).getByText('Any', { selector: '.multi-select__summary' }));
    await user.click(within(form).getByRole('checkbox', { name: 'Create branch' }));
    await user.click(within(form).getByRole('checkbox', { name: 'Apply config' }));
    // What the browser sends for the form (Apply filters submits it).
    expect(within(form).getByRole('button', { name: 'Apply filters' })).toHaveAttribute('type', 'submit');
    const sent = new URLSearchParams([...new FormData(form)].map(([name, value]) => [name, typeof value === 'string' ? value : value.name]));
    expect(filtersFromSearch(sent)).toEqual({ ...NO_FILTERS, status: ['error', 'cancelled'], action: ['apply_config', 'create_branch'] });

    const filtered = await sentPage(`${form.getAttribute('action') ?? ''}?${sent.toString()}`);
    expect(shownActions(filtered)).toEqual(['Create branch']);
    // A chip's link is the address without it.
    const remove = within(filtered).getByRole('link', { name: 'Remove Cancelled' });
    expect(filtersFromSearch(new URL(remove.getAttribute('href') ?? '', 'http://console.invalid').searchParams)).toEqual({
      ...NO_FILTERS,
      status: ['error'],
      action: ['apply_config', 'create_branch'],
    });
  });
});

describe('fields typed in before the browser takes the page over (app/early-edits.ts)', () => {
  it('filters the projects list by a search typed on the server’s HTML, and keeps it through the next render', async () => {
    const named = { name: 'Typed before takeover' };
    sim.cp.addProject({ name: named.name, ownerId: sim.seed.userId, compute: 'idle' });
    let edits: ReturnType<typeof noteEarlyEdits> | undefined;
    const { recovered, logged } = await hydrate('/', {
      beforeTakeover: (container) => {
        edits = noteEarlyEdits(container);
        const search = container.querySelector<HTMLInputElement>('input[type="search"]');
        if (!search) throw new Error('the rendered projects list has no search field');
        // What typing does to the field before React listens: its value, then an input event nobody handles.
        search.value = named.name;
        search.dispatchEvent(new Event('input', { bubbles: true }));
      },
      // As mount-app.tsx does: once React has taken the page over.
      afterTakeover: () => void edits?.replay(),
    });
    expect(recovered).toEqual([]);
    expect(logged()).toEqual([]);
    // Once React has taken the page over, the list is filtered by what was typed, and the field still shows it.
    const table = await screen.findByRole('table', { name: `Projects, filtered by “${named.name}”: 1 shown` });
    const search = screen.getByLabelText('Search projects');
    expect(search).toHaveValue(named.name);
    expect(within(table).getByRole('link', { name: named.name })).toBeInTheDocument();
    // A later render keeps what was typed, and typing on goes on from it.
    await userEvent.setup().type(search, ' x');
    expect(search).toHaveValue(`${named.name} x`);
    expect(await screen.findByRole('table', { name: `Projects, filtered by “${named.name} x”: 0 shown` })).toBeInTheDocument();
  });
});

describe('filters chosen before the browser takes a history over (app/early-edits.ts)', () => {
  it('honours a Status box ticked on the server’s HTML: the address and the table follow once React has it', async () => {
    const project = sim.cp.addProject({ name: 'Chosen before takeover', ownerId: sim.seed.userId, compute: 'idle' });
    const start = sim.clock.now() - 3_600_000;
    (['finished', 'failed', 'finished', 'failed', 'finished'] as const).forEach((status, i) =>
      sim.cp.addOperation({ projectId: project.id, action: i === 3 ? 'apply_config' : 'start_compute', status, createdAt: start + i * 60_000 }),
    );
    let edits: ReturnType<typeof noteEarlyEdits> | undefined;
    const { recovered, logged } = await hydrate(`/projects/${project.id}`, {
      beforeTakeover: (container) => {
        edits = noteEarlyEdits(container);
        // What ticking a box does before React listens: it is ticked, and its events reach nobody.
        const failed = [...container.querySelectorAll<HTMLInputElement>('input[type="checkbox"][name="status"]')].find(
          (box) => box.closest('label')?.textContent.trim() === 'Error',
        );
        if (!failed) throw new Error('the rendered Status has no Error box');
        failed.checked = true;
        failed.dispatchEvent(new Event('input', { bubbles: true }));
        failed.dispatchEvent(new Event('change', { bubbles: true }));
      },
      afterTakeover: () => void edits?.replay(),
    });
    expect(recovered).toEqual([]);
    expect(logged()).toEqual([]);
    // Once React has taken the page over: the address the form would have sent, and the table filtered by it.
    await waitFor(() => expect(filtersFromSearch(new URLSearchParams(window.location.search))).toEqual({ ...NO_FILTERS, status: ['failed', 'error'] }));
    const table = await screen.findByRole('table', { name: /operations/i });
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(3));
    expect(within(table).getByRole('link', { name: 'Apply config' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Remove Error' })).toBeInTheDocument();
  });

  it('leaves the time range’s fields disabled until then: the form does not send them', async () => {
    const project = sim.cp.addProject({ name: 'Time range before takeover', ownerId: sim.seed.userId, compute: 'idle' });
    const rendered = await renderScreen({
      url: `/projects/${project.id}`,
      session: holdSession(sim.apiKey),
      transport: sameOriginTransport,
      signal: new AbortController().signal,
    });
    await (
      await renderToReadableStream(null)
    ).allReady;
    if (rendered.kind !== 'rendered') throw new Error(`not rendered: ${rendered.kind}`);
    const page = document.createElement('div');
    page.innerHTML = rendered.html;
    expect(within(page).getByLabelText('From')).toBeDisabled();
    expect(within(page).getByLabelText('To')).toBeDisabled();
  });
});

describe('a signed-out page: the key screen, rendered by the server', () => {
  async function hydrateKeyScreen(url: string, page: PageData, beforeTakeover?: (container: HTMLElement) => void) {
    const sent = await asSent(page, await renderKeyScreen({ url, data: page, signal: new AbortController().signal }));
    return { html: sent.html, ...(await takeOver(url, sent, { beforeTakeover })) };
  }

  it('is a form that posts without the script, and keeps a key typed (and the box ticked) before the browser took it over', async () => {
    const { html, recovered, logged, state } = await hydrateKeyScreen('/projects/p-9?status=failed', { session: SIGNED_OUT }, (container) => {
      // A person types and ticks on the server's HTML, before React has arrived.
      const key = container.querySelector<HTMLInputElement>('input[name="api-key"]');
      const remember = container.querySelector<HTMLInputElement>('input[name="remember"]');
      if (!key || !remember) throw new Error('the rendered key screen has no key field or no remember box');
      key.value = sim.apiKey;
      remember.checked = true;
    });
    // The HTML as sent: a form that posts the key to the console's server, back to the address asked for.
    const sent = document.createElement('template');
    sent.innerHTML = html;
    const form = sent.content.querySelector('form');
    expect([form?.getAttribute('method'), form?.getAttribute('action')]).toEqual(['post', '/session']);
    expect(form?.querySelector('input[name="return-to"]')?.getAttribute('value')).toBe('/projects/p-9?status=failed');
    expect(recovered).toEqual([]);
    expect(logged()).toEqual([]);
    // Nothing asked of the API to draw it.
    expect(requests).toEqual([]);

    const key = screen.getByLabelText(/API key/);
    expect(key).toHaveValue(sim.apiKey);
    // A re-render (the key shown as text) leaves what was typed in place.
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Show key' }));
    expect(key).toHaveAttribute('type', 'text');
    expect(key).toHaveValue(sim.apiKey);

    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(heldKey()).toBe(sim.apiKey));
    // Signed in with the box as it was ticked, on the address asked for.
    expect(state.session.getState()).toMatchObject({ signedIn: true, remembered: true });
    expect(window.location.pathname).toBe('/projects/p-9');
  });

  it('names the API the running server forwards to, whatever the build was made with, on the server and after the takeover', async () => {
    const forwarding = await hydrateKeyScreen('/', { session: SIGNED_OUT, apiUrl: 'https://console.neon.tech/api/v2' });
    // As a person reads the HTML (React separates the text around the name with comments).
    const text = (html: string) => html.replaceAll('<!-- -->', '');
    expect(text(forwarding.html)).toContain('Talking to https://console.neon.tech/api/v2.');
    expect(forwarding.html).not.toContain('simulator');
    expect(forwarding.recovered).toEqual([]);
    expect(screen.getByText(/Talking to https:\/\/console\.neon\.tech\/api\/v2\./)).toBeInTheDocument();
    act(() => root?.unmount());
    root = undefined;
    document.body.replaceChildren();

    const simulated = await hydrateKeyScreen('/', { session: SIGNED_OUT });
    expect(text(simulated.html)).toContain('Talking to the built-in simulator (demo data).');
  });

  it('says why a form post failed, or why the session ended, as the browser would', async () => {
    const failed = await hydrateKeyScreen('/', {
      session: SIGNED_OUT,
      signIn: { problem: { kind: 'rejected', message: 'This key was rejected (invalid or revoked).', requestId: 'req-7' }, returnTo: '/' },
    });
    expect(failed.html).toContain('This key was rejected (invalid or revoked).');
    expect(failed.recovered).toEqual([]);
    expect(failed.logged()).toEqual([]);
    expect(screen.getByRole('alert')).toHaveTextContent('This key was rejected (invalid or revoked).Request id: req-7');
    act(() => root?.unmount());
    root = undefined;
    document.body.replaceChildren();

    const restarted = await hydrateKeyScreen('/', { session: SIGNED_OUT, sessionEnded: 'restarted' });
    expect(restarted.recovered).toEqual([]);
    expect(restarted.logged()).toEqual([]);
    expect(screen.getByRole('alert')).toHaveTextContent(/restart/i);
  });
});

describe('a render the server reuses (server/pages/render-memo.ts)', () => {
  async function render(url: string, memo: ReturnType<typeof createRenderMemo>, renderSlot?: { enter: () => boolean; leave: () => void }) {
    const rendered = await renderScreen({
      url,
      session: holdSession(sim.apiKey),
      transport: sameOriginTransport,
      signal: new AbortController().signal,
      memo,
      renderSlot,
    });
    await (
      await renderToReadableStream(null)
    ).allReady;
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
    const scoped = await renderScreen({
      url,
      session: { ...holdSession(sim.apiKey), keyKind: 'organization' },
      transport: sameOriginTransport,
      signal: new AbortController().signal,
      memo,
    });
    await (
      await renderToReadableStream(null)
    ).allReady;
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
