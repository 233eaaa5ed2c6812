// One Server-Sent Events stream per browser (docs/live.md, "The page"): of the tabs signed in with one key,
// the tab holding the key's live Web Lock holds the EventSource and passes every event to the others over a
// BroadcastChannel, with the stream's state ("live" or "down") every HEARTBEAT_MS; a tab that hears no
// heartbeat for HEARD_WITHIN_MS counts the stream down (the leading tab was closed; the lock passes on and
// the next tab opens the stream). A stream that fails is closed and opened again after the server's
// `retry:` with jitter, growing to RECONNECT_MAX_MS, from the last id it saw (`?after=`). Without
// EventSource (or Web Locks, or BroadcastChannel) each tab holds its own stream, or none.
// The stream is open only while some tab has something to follow (`want`): a tab that does says so to the
// leading tab every HEARTBEAT_MS; the leading tab opens the stream when the first tab wants it and closes it
// GRACE_MS after the last stops, so a page with nothing in flight holds no connection (and goes network-idle).

export type LiveState = 'live' | 'down';

export interface LiveMessage {
  event: string;
  id: string;
  data: string;
}

export interface LiveLink {
  state: () => LiveState;
  subscribe: (listener: () => void) => () => void;
  /** Each event, from this tab's stream or the leading tab's. */
  onMessage: (listener: (message: LiveMessage) => void) => () => void;
  /** Follows the stream of this key namespace (a hash of the key); null: no stream (signed out). */
  open: (namespace: string | null) => void;
  /** Whether this tab has something to follow (docs/live.md): the stream is open while any tab of the key has. */
  want: (wanted: boolean) => void;
  close: () => void;
}

export interface LiveLinkOptions {
  url: string;
  /** The events the stream carries (besides `ready`, which says it is up). */
  events: readonly string[];
  eventSource?: ((url: string) => EventSource) | undefined;
  locks?: LockManager | undefined;
  channel?: ((name: string) => BroadcastChannel) | undefined;
  random?: () => number;
}

export const HEARTBEAT_MS = 2_000;
export const HEARD_WITHIN_MS = 4_500;
export const RECONNECT_MS = 3_000;
export const RECONNECT_MAX_MS = 60_000;
/** The stream stays open this long after the last tab has nothing left to follow (a page that comes back soon keeps it). */
export const GRACE_MS = 10_000;

/** What the leading tab sends the others. */
type ChannelMessage = { kind: 'event'; event: string; id: string; data: string } | { kind: 'state'; state: LiveState };
/** What the other tabs send the leading tab: this tab has something to follow (repeated every HEARTBEAT_MS). */
type WantMessage = { kind: 'want' };

/** Another tab is another program: what it sends is checked as any wire is (by hand: this code loads without zod). */
function channelMessage(value: unknown): ChannelMessage | WantMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const m = value as Record<string, unknown>;
  if (m.kind === 'want') return { kind: 'want' };
  if (m.kind === 'state' && (m.state === 'live' || m.state === 'down')) return { kind: 'state', state: m.state };
  if (m.kind === 'event' && typeof m.event === 'string' && typeof m.id === 'string' && typeof m.data === 'string')
    return { kind: 'event', event: m.event, id: m.id, data: m.data };
  return null;
}

export function createLiveLink(options: LiveLinkOptions): LiveLink {
  const makeSource = 'eventSource' in options ? options.eventSource : typeof EventSource === 'function' ? (url: string) => new EventSource(url) : undefined;
  const locks = 'locks' in options ? options.locks : typeof navigator !== 'undefined' && 'locks' in navigator ? navigator.locks : undefined;
  const makeChannel =
    'channel' in options ? options.channel : typeof BroadcastChannel === 'function' ? (name: string) => new BroadcastChannel(name) : undefined;
  const random = options.random ?? Math.random;
  const listeners = new Set<() => void>();
  const handlers = new Set<(message: LiveMessage) => void>();
  let state: LiveState = 'down';
  let wanted = false;
  let session: { stop: () => void; decide: () => void } | undefined;

  const setState = (next: LiveState) => {
    if (state === next) return;
    state = next;
    for (const listener of [...listeners]) listener();
  };
  const deliver = (message: LiveMessage) => {
    for (const handler of [...handlers]) handler(message);
  };

  /** Holds the stream in this tab until `stop`; `share` passes what it hears to the other tabs. */
  function holdStream(share: (message: ChannelMessage) => void): () => void {
    if (!makeSource) return () => undefined;
    const open = makeSource;
    let source: EventSource | undefined;
    let lastId = '';
    let failures = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const say = (next: LiveState) => {
      setState(next);
      share({ kind: 'state', state: next });
    };
    const connect = () => {
      if (stopped) return;
      source = open(lastId ? `${options.url}?after=${encodeURIComponent(lastId)}` : options.url);
      const take = (event: string) => (e: MessageEvent) => {
        if (typeof e.data !== 'string') return;
        if (e.lastEventId) lastId = e.lastEventId;
        failures = 0;
        say('live');
        if (event === 'ready') return;
        const message = { event, id: e.lastEventId, data: e.data };
        deliver(message);
        share({ kind: 'event', ...message });
      };
      source.addEventListener('ready', take('ready'));
      for (const event of options.events) source.addEventListener(event, take(event));
      source.onerror = () => {
        // Down at once (polling takes over); opened again after the retry with jitter, from the last id.
        source?.close();
        source = undefined;
        say('down');
        failures++;
        const base = Math.min(RECONNECT_MAX_MS, RECONNECT_MS * 2 ** Math.min(failures - 1, 5));
        timer = setTimeout(connect, base * (0.5 + random()));
      };
    };
    connect();
    const beat = setInterval(() => share({ kind: 'state', state }), HEARTBEAT_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
      clearInterval(beat);
      source?.close();
      source = undefined;
      setState('down');
    };
  }

  /** Follows the key's stream: the leading tab (or each tab, without locks or a channel) holds it while a tab wants it. */
  function follow(namespace: string): { stop: () => void; decide: () => void } {
    const channel = locks && makeChannel ? makeChannel(`ops-console.live.${namespace}`) : undefined;
    const send = (message: ChannelMessage | WantMessage) => {
      try {
        channel?.postMessage(message);
      } catch {
        // The channel is closed: this tab is leaving.
      }
    };
    let heardAt = 0;
    let othersWantedAt = 0;
    let saidWantAt = 0;
    let leading = !channel;
    let stream: (() => void) | undefined;
    let idleSince: number | undefined;
    // Opens the stream when a tab wants it, closes it GRACE_MS after none does; a tab that wants it tells the leader.
    const decide = () => {
      const now = Date.now();
      if (!leading) {
        if (wanted && now - saidWantAt >= HEARTBEAT_MS) {
          saidWantAt = now;
          send({ kind: 'want' });
        }
        if (!wanted) saidWantAt = 0;
        return;
      }
      if (wanted || now - othersWantedAt < HEARD_WITHIN_MS) {
        idleSince = undefined;
        stream ??= holdStream(send);
      } else if (stream) {
        idleSince ??= now;
        if (now - idleSince < GRACE_MS) return;
        stream();
        stream = undefined;
        idleSince = undefined;
        send({ kind: 'state', state: 'down' });
      }
    };
    if (channel)
      channel.onmessage = (e: MessageEvent) => {
        const message = channelMessage(e.data);
        if (!message) return;
        if (leading) {
          if (message.kind === 'want') {
            othersWantedAt = Date.now();
            decide();
          }
          return;
        }
        if (message.kind === 'want') return;
        heardAt = Date.now();
        if (message.kind === 'state') setState(message.state);
        else deliver({ event: message.event, id: message.id, data: message.data });
      };
    // The leading tab gone quiet (closed, frozen): down until the next one leads. And the grace, and the wish, kept.
    const watchdog = setInterval(() => {
      if (!leading && state === 'live' && Date.now() - heardAt > HEARD_WITHIN_MS) setState('down');
      decide();
    }, 500);
    const abort = new AbortController();
    let release: () => void = () => undefined;
    if (locks && channel)
      locks
        .request(`ops-console.live.${namespace}`, { signal: abort.signal }, () => {
          if (abort.signal.aborted) return undefined;
          leading = true;
          decide();
          return new Promise<void>((resolve) => {
            release = () => {
              stream?.();
              stream = undefined;
              resolve();
            };
          });
        })
        .catch(() => undefined);
    else decide();
    return {
      decide,
      stop: () => {
        abort.abort();
        release();
        stream?.();
        stream = undefined;
        clearInterval(watchdog);
        if (channel) {
          channel.onmessage = null;
          channel.close();
        }
        setState('down');
      },
    };
  }

  return {
    state: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onMessage(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    open(namespace) {
      session?.stop();
      session = namespace === null ? undefined : follow(namespace);
    },
    want(next) {
      if (wanted === next) return;
      wanted = next;
      session?.decide();
    },
    close() {
      session?.stop();
      session = undefined;
    },
  };
}
