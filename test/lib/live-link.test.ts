// One live stream per browser (src/lib/poll-sharing/live-link.ts, docs/live.md): the tab holding the key's lock
// holds the EventSource and passes its events to the other tabs; when it goes, another tab opens the stream; a
// stream that fails is down at once and opened again from the last id it saw. The stream is open only while some
// tab has something to follow, and closed a grace after the last one's goes (a page at rest holds no connection).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GRACE_MS, createLiveLink, type LiveLink, type LiveMessage } from '../../src/lib/poll-sharing/live-link';

class FakeSource extends EventTarget {
  static opened: FakeSource[] = [];
  onerror: (() => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    super();
    FakeSource.opened.push(this);
  }
  close() {
    this.closed = true;
  }
  emit(event: string, id: string, data: string) {
    this.dispatchEvent(new MessageEvent(event, { data, lastEventId: id }));
  }
}

/** Web Locks as one browser has them: the first request holds the name, the next waits for its release. */
function fakeLocks(): LockManager {
  const queues = new Map<string, (() => void)[]>();
  const held = new Set<string>();
  const request = (name: string, options: { signal?: AbortSignal }, callback: () => Promise<void> | undefined) =>
    new Promise<void>((resolve, reject) => {
      const run = () => {
        held.add(name);
        void Promise.resolve(callback()).finally(() => {
          held.delete(name);
          resolve();
          queues.get(name)?.shift()?.();
        });
      };
      if (!held.has(name)) run();
      else {
        queues.set(name, [...(queues.get(name) ?? []), run]);
        options.signal?.addEventListener('abort', () => {
          queues.set(
            name,
            (queues.get(name) ?? []).filter((waiting) => waiting !== run),
          );
          reject(new Error('aborted'));
        });
      }
    });
  return { request } as unknown as LockManager;
}

const links: LiveLink[] = [];
afterEach(() => {
  for (const link of links.splice(0)) link.close();
  FakeSource.opened = [];
  vi.useRealTimers();
});

function tab(locks: LockManager, wants = true): { link: LiveLink; heard: LiveMessage[] } {
  const link = createLiveLink({
    url: '/events',
    events: ['operation'],
    eventSource: (url) => new FakeSource(url) as unknown as EventSource,
    locks,
    random: () => 0.5,
  });
  const heard: LiveMessage[] = [];
  link.onMessage((message) => heard.push(message));
  links.push(link);
  link.want(wants);
  link.open('key-fingerprint');
  return { link, heard };
}

describe('the live link', () => {
  it('holds one stream for the tabs of a key, passes its events on, and another tab takes it when the first goes', async () => {
    const locks = fakeLocks();
    const first = tab(locks);
    const second = tab(locks);
    await vi.waitFor(() => expect(FakeSource.opened).toHaveLength(1));
    const stream = FakeSource.opened[0];
    stream?.emit('ready', '4', '{}');
    expect(first.link.state()).toBe('live');
    await vi.waitFor(() => expect(second.link.state()).toBe('live'));
    stream?.emit('operation', '5', '{"id":"op"}');
    expect(first.heard).toEqual([{ event: 'operation', id: '5', data: '{"id":"op"}' }]);
    await vi.waitFor(() => expect(second.heard).toEqual(first.heard));

    first.link.close();
    expect(stream?.closed).toBe(true);
    await vi.waitFor(() => expect(FakeSource.opened).toHaveLength(2));
    FakeSource.opened[1]?.emit('ready', '5', '{}');
    expect(second.link.state()).toBe('live');
  });

  it('is down at once when the stream fails, and opens it again after the retry, from the last id', async () => {
    vi.useFakeTimers();
    const { link } = tab(fakeLocks());
    await vi.waitFor(() => expect(FakeSource.opened).toHaveLength(1));
    const stream = FakeSource.opened[0];
    stream?.emit('ready', '7', '{}');
    expect(link.state()).toBe('live');
    stream?.onerror?.();
    expect(link.state()).toBe('down');
    expect(stream?.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(FakeSource.opened.at(-1)?.url).toBe('/events?after=7');
  });

  it('opens no stream while no tab has something to follow, opens it for another tab that has, and closes it a grace after the last', async () => {
    vi.useFakeTimers();
    const locks = fakeLocks();
    const leader = tab(locks, false);
    const other = tab(locks, false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(FakeSource.opened).toHaveLength(0);

    // The tab that does not hold the lock opens an operation in flight: the leading tab opens the stream for it.
    other.link.want(true);
    await vi.advanceTimersByTimeAsync(600);
    expect(FakeSource.opened).toHaveLength(1);
    const stream = FakeSource.opened[0];
    stream?.emit('ready', '3', '{}');
    await vi.advanceTimersByTimeAsync(2_000);
    expect(other.link.state()).toBe('live');

    // Its operation ends: the stream stays for the grace (a page that comes back soon keeps it), then closes.
    other.link.want(false);
    await vi.advanceTimersByTimeAsync(GRACE_MS);
    expect(stream?.closed).toBe(false);
    await vi.advanceTimersByTimeAsync(6_000);
    expect(stream?.closed).toBe(true);
    expect(leader.link.state()).toBe('down');
    expect(other.link.state()).toBe('down');
    expect(FakeSource.opened).toHaveLength(1);

    // Wanted again within the grace: the same stream stays open.
    leader.link.want(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeSource.opened).toHaveLength(2);
    leader.link.want(false);
    await vi.advanceTimersByTimeAsync(GRACE_MS / 2);
    leader.link.want(true);
    await vi.advanceTimersByTimeAsync(GRACE_MS * 2);
    expect(FakeSource.opened).toHaveLength(2);
    expect(FakeSource.opened[1]?.closed).toBe(false);
  });
});
