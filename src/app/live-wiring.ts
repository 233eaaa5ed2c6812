import type { QueryClient } from '@tanstack/react-query';
import {
  applyOperationEvent,
  applyReset,
  EVENTS_URL,
  hasLiveWork,
  LIVE_EVENTS,
  WATCH_REPEAT_MS,
  watchTargets,
  type LiveRules,
  type WatchTarget,
} from '../api/live-events';
import { createLiveLink, type LiveLink } from '../lib/poll-sharing/live-link';
import type { PollSharing } from '../lib/poll-sharing/poll-sharing';
import type { Operation } from '../api/schemas';

// The live stream wired to the query cache and poll sharing (docs/live.md), loaded after the first screen (app-state.ts);
// what it does to the cache comes from the first screen's code (handed in), so loading this splits no shared chunk.

/**
 * One live stream per browser (docs/live.md): its events update the cache; while it is up the polls that may
 * pause do (the stream is the source) and the page tells the server what it has open, so the server follows
 * it once for everyone; when it is down, today's polling takes over at once. The stream is open only while a tab
 * has something to follow (hasLiveWork), so a page with nothing in flight holds no connection.
 */
/** What the stream needs of the first screen's code: the watch post, the event's parse, and the rules of LiveRules. */
export interface LiveWire extends LiveRules {
  postWatches: (watches: readonly WatchTarget[]) => Promise<void>;
  operationOfEvent: (data: string) => Operation | null;
}

export function connectLive(queryClient: QueryClient, pollSharing: PollSharing, wire: LiveWire): LiveLink {
  const { postWatches, operationOfEvent } = wire;
  const live = createLiveLink({ url: EVENTS_URL, events: LIVE_EVENTS });
  live.onMessage((message) => {
    const op = message.event === 'operation' ? operationOfEvent(message.data) : null;
    if (op) applyOperationEvent(queryClient, op, wire);
    else if (message.event === 'reset') applyReset(queryClient);
  });
  let told = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tell = (force: boolean) => {
    if (live.state() !== 'live') return;
    const targets = watchTargets(queryClient, wire);
    const name = JSON.stringify(targets);
    if ((!force && name === told) || targets.length === 0) return;
    told = name;
    postWatches(targets).catch(() => {
      told = '';
    });
  };
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      live.want(hasLiveWork(queryClient, wire));
      tell(false);
    }, 300);
  };
  queryClient.getQueryCache().subscribe((event) => {
    if (event.type === 'observerAdded' || event.type === 'observerRemoved' || event.type === 'updated') soon();
  });
  setInterval(() => {
    live.want(hasLiveWork(queryClient, wire));
    tell(true);
  }, WATCH_REPEAT_MS);
  // What the first screen already has open (its queries came before this code).
  soon();
  live.subscribe(() => {
    const up = live.state() === 'live';
    pollSharing.setLive(up);
    if (up) tell(true);
  });
  return live;
}
