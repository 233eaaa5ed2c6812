import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { act, render, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { createPollSharing, type PollSharing, type VisibilitySource } from '../../src/lib/poll-sharing/poll-sharing';
import { PollSharingContext, useSharedPoll } from '../../src/lib/poll-sharing/use-shared-polls';

// Two "tabs" are two query clients in one jsdom, sharing small in-memory stand-ins for the browser's
// Web Locks and BroadcastChannel (jsdom has neither), each with a visibility of its own.

const INTERVAL_MS = 100;
const TICKS_KEY = ['ticks'] as const;
const TickSchema = z.object({ n: z.number() });
const schemaFor = ({ queryKey }: { queryKey: readonly unknown[] }) => (queryKey[0] === 'ticks' ? TickSchema : null);

/** Exclusive locks by name, granted in request order, as `navigator.locks.request` does. */
function fakeLocks(): LockManager {
  const held = new Set<string>();
  const queues = new Map<string, (() => void)[]>();
  const grantNext = (name: string) => {
    const next = queues.get(name)?.shift();
    if (next) next();
  };
  const request = (name: string, options: LockOptions, callback: LockGrantedCallback<unknown>): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const run = () => {
        held.add(name);
        void Promise.resolve(callback({ name, mode: 'exclusive' }))
          .then(resolve, reject)
          .finally(() => {
            held.delete(name);
            grantNext(name);
          });
      };
      if (!held.has(name)) {
        run();
        return;
      }
      const queue = queues.get(name) ?? [];
      queues.set(name, queue);
      queue.push(run);
      options.signal?.addEventListener('abort', () => {
        const at = queue.indexOf(run);
        if (at >= 0) queue.splice(at, 1);
        reject(new DOMException('aborted', 'AbortError'));
      });
    });
  return { request, query: () => Promise.resolve({ held: [], pending: [] }) } as unknown as LockManager;
}

/** Channels by name that deliver a structured clone of each message to every other open channel. */
function fakeBroadcast() {
  const open = new Map<string, Set<BroadcastChannel>>();
  const make = (name: string): BroadcastChannel => {
    const peers = open.get(name) ?? new Set<BroadcastChannel>();
    open.set(name, peers);
    const channel = {
      name,
      onmessage: null as ((event: MessageEvent) => void) | null,
      postMessage(message: unknown) {
        const copy: unknown = structuredClone(message);
        for (const peer of peers) {
          if (peer !== (channel as unknown as BroadcastChannel))
            queueMicrotask(() => {
              peer.onmessage?.(new MessageEvent('message', { data: copy }));
            });
        }
      },
      close() {
        peers.delete(channel as unknown as BroadcastChannel);
      },
    };
    peers.add(channel as unknown as BroadcastChannel);
    return channel as unknown as BroadcastChannel;
  };
  const post = (name: string, message: unknown) => {
    for (const peer of open.get(name) ?? []) peer.onmessage?.(new MessageEvent('message', { data: message }));
  };
  return { make, post };
}

function fakeVisibility(): VisibilitySource & { set: (state: DocumentVisibilityState) => void } {
  const target = new EventTarget();
  const doc = {
    visibilityState: 'visible' as DocumentVisibilityState,
    addEventListener: target.addEventListener.bind(target),
    removeEventListener: target.removeEventListener.bind(target),
    set(state: DocumentVisibilityState) {
      doc.visibilityState = state;
      target.dispatchEvent(new Event('visibilitychange'));
    },
  };
  return doc;
}

/** The server: counts requests and answers with the count, so each answer is new data. */
let served = 0;
const fetchTicks = () => Promise.resolve({ n: ++served });

function Ticks({ label, paceMs = INTERVAL_MS }: { label: string; paceMs?: number }) {
  const refetchInterval = useSharedPoll<{ n: number }, Error>({ queryKey: TICKS_KEY, delay: () => paceMs });
  const { data } = useQuery({ queryKey: TICKS_KEY, queryFn: fetchTicks, staleTime: Infinity, refetchInterval });
  return <p>{`${label}: answer ${data?.n ?? 'none'}`}</p>;
}

interface Tab {
  sharing: PollSharing;
  visibility: ReturnType<typeof fakeVisibility>;
  view: ReturnType<typeof render>;
  rerender: (children: React.ReactNode) => void;
  shows: (label: string) => string;
}

const tabs: Tab[] = [];

function openTab(env: { locks?: LockManager; channel?: (name: string) => BroadcastChannel }, children: React.ReactNode): Tab {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });
  const visibility = fakeVisibility();
  const sharing = createPollSharing({ queryClient, schemaFor, locks: env.locks, channel: env.channel, document: visibility });
  sharing.open('namespace-hash');
  const wrap = (node: React.ReactNode) => (
    <QueryClientProvider client={queryClient}>
      <PollSharingContext.Provider value={sharing}>{node}</PollSharingContext.Provider>
    </QueryClientProvider>
  );
  const view = render(wrap(children));
  const tab: Tab = {
    sharing,
    visibility,
    view,
    rerender: (node) => view.rerender(wrap(node)),
    shows: (label) => within(view.container).getByText(new RegExp(`^${label}:`)).textContent,
  };
  tabs.push(tab);
  return tab;
}

const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

beforeEach(() => {
  vi.useFakeTimers();
  served = 0;
});
afterEach(() => {
  for (const tab of tabs.splice(0)) {
    tab.view.unmount();
    tab.sharing.dispose();
  }
  vi.useRealTimers();
});

describe('poll sharing in one tab', () => {
  it('runs one timer for two observers of one key, at the pace of the more urgent one', async () => {
    const tab = openTab(
      { locks: undefined, channel: undefined },
      <>
        <Ticks label="slow" paceMs={3 * INTERVAL_MS} />
        <Ticks label="fast" />
      </>,
    );
    await advance(0);
    const first = served;

    await advance(10 * INTERVAL_MS);

    // Ten intervals of the fast observer: ten polls, not ten plus the slow one's three.
    expect(served - first).toBe(10);
    expect(tab.shows('slow')).toBe(tab.shows('fast').replace('fast', 'slow'));
  });

  it('hands the timer to the remaining observer when the one running it goes away', async () => {
    function Screen({ both }: { both: boolean }) {
      return (
        <>
          {both && <Ticks label="first" />}
          <Ticks label="second" />
        </>
      );
    }
    const tab = openTab({ locks: undefined, channel: undefined }, <Screen both />);
    await advance(0);
    tab.rerender(<Screen both={false} />);
    await advance(0);
    const before = served;

    await advance(5.5 * INTERVAL_MS);

    expect(served - before).toBe(5);
    expect(tab.shows('second')).toBe(`second: answer ${served}`);
  });
});

describe('poll sharing across tabs of one key', () => {
  function threeTabs() {
    const locks = fakeLocks();
    const broadcast = fakeBroadcast();
    const env = { locks, channel: broadcast.make };
    return { broadcast, tabs: [openTab(env, <Ticks label="a" />), openTab(env, <Ticks label="b" />), openTab(env, <Ticks label="c" />)] as const };
  }

  it('polls from one tab only, and the others show what it fetched', async () => {
    const {
      tabs: [a, b, c],
    } = threeTabs();
    await advance(0);
    const afterFirstLoads = served; // each tab loads once on mount, as a tab alone would

    // Ten and a half intervals: the tenth answer has reached every screen, the eleventh poll is not due.
    await advance(10.5 * INTERVAL_MS);

    expect(served - afterFirstLoads).toBe(10);
    expect([a.shows('a'), b.shows('b'), c.shows('c')]).toEqual([`a: answer ${served}`, `b: answer ${served}`, `c: answer ${served}`]);
    expect([a, b, c].filter((tab) => tab.sharing.ownsKey('["ticks"]'))).toHaveLength(1);
  });

  it('hands polling to a visible tab when the polling tab is hidden, and stops when all are hidden', async () => {
    const { tabs: all } = threeTabs();
    await advance(0);
    const owner = all.find((tab) => tab.sharing.ownsKey('["ticks"]'));
    if (!owner) throw new Error('no tab polls');

    owner.visibility.set('hidden');
    await advance(0);
    const before = served;
    await advance(5 * INTERVAL_MS);

    expect(served - before).toBe(5);
    expect(owner.sharing.ownsKey('["ticks"]')).toBe(false);
    expect(all.filter((tab) => tab.sharing.ownsKey('["ticks"]'))).toHaveLength(1);

    for (const tab of all) tab.visibility.set('hidden');
    await advance(0);
    const hiddenFrom = served;
    await advance(5 * INTERVAL_MS);

    expect(served).toBe(hiddenFrom);
  });

  it('lets another tab take over when the polling tab signs out', async () => {
    const { tabs: all } = threeTabs();
    await advance(0);
    const owner = all.find((tab) => tab.sharing.ownsKey('["ticks"]'));
    if (!owner) throw new Error('no tab polls');

    owner.sharing.close();
    await advance(0);
    const before = served;
    await advance(5 * INTERVAL_MS);

    expect(served - before).toBe(5);
    expect(all.filter((tab) => tab.sharing.ownsKey('["ticks"]'))).toHaveLength(1);
    // The signed-out tab no longer receives results.
    expect(owner.shows(['a', 'b', 'c'][all.indexOf(owner)] ?? '')).not.toContain(`answer ${served}`);
  });

  it('ignores a shared result that does not pass the schema, or is older than its own', async () => {
    const { broadcast, tabs: all } = threeTabs();
    await advance(0);
    const [a] = all;
    const shown = a.shows('a');

    await act(async () => {
      broadcast.post('ops-console.poll.namespace-hash', { queryKey: ['ticks'], dataUpdatedAt: Date.now() + 1_000, data: { n: 'not a number' } });
      broadcast.post('ops-console.poll.namespace-hash', { queryKey: ['ticks'], dataUpdatedAt: 1, data: { n: 999 } });
      await Promise.resolve();
    });

    expect(a.shows('a')).toBe(shown);
  });
});
