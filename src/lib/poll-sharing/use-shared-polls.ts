import { hashKey, type QueryKey, type QueryState } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useState, useSyncExternalStore } from 'react';
import type { PollDelay, PollSharing } from './poll-sharing';

export const PollSharingContext = createContext<PollSharing | null>(null);

export interface SharedPoll<TData, TError> {
  queryKey: QueryKey;
  /** How soon this observer wants the next poll (docs/architecture.md: a function of the query's state). */
  delay: (state: QueryState<TData, TError>) => PollDelay;
  /** While the live stream is up: pause (the default: the stream brings the changes) or keep polling. */
  whileLive?: 'pause' | 'keep';
}

export type SharedRefetchInterval<TData, TError> = (query: { state: QueryState<TData, TError> }) => PollDelay;

/**
 * The `refetchInterval` of each polled observer in a component, through the one poll-sharing layer:
 * a real interval only for the observer that runs its key's timer (one per key across the tabs of
 * a key), false for every other, which reads what that one fetches.
 */
export function useSharedPolls<TData, TError>(polls: readonly SharedPoll<TData, TError>[]): SharedRefetchInterval<TData, TError>[] {
  const sharing = useContext(PollSharingContext);
  if (!sharing) throw new Error('useSharedPolls needs <PollSharingContext.Provider>');
  const [member] = useState(() => sharing.member());
  const hashes = polls.map((poll) => hashKey(poll.queryKey));

  // Every render: join new keys, leave dropped ones, and hand over the latest wishes.
  useEffect(() => {
    member.sync(
      new Map(
        polls.map((poll, i) => [
          hashes[i] ?? '',
          { delay: (state: QueryState<unknown, unknown>) => poll.delay(state as QueryState<TData, TError>), whileLive: poll.whileLive ?? 'pause' },
        ]),
      ),
    );
  });
  useEffect(() => () => member.leave(), [member]);
  // Re-render when this component starts or stops running a timer, so React Query restarts it.
  useSyncExternalStore(sharing.subscribe, member.snapshot, member.snapshot);

  return hashes.map((queryHash) => (query) => member.interval(queryHash, query.state));
}

export function useSharedPoll<TData, TError>(poll: SharedPoll<TData, TError>): SharedRefetchInterval<TData, TError> {
  const [interval = () => false] = useSharedPolls([poll]);
  return interval;
}

export const LiveStateContext = createContext<LiveStateSource | null>(null);

/** Where the page reads whether the live stream is in use (lib/poll-sharing/live-link.ts). */
export interface LiveStateSource {
  state: () => 'live' | 'down';
  subscribe: (listener: () => void) => () => void;
}

/** No stream: always down (a server render, a browser without EventSource, LIVE_EVENTS=off). */
export const NO_LIVE: LiveStateSource = { state: () => 'down', subscribe: () => () => undefined };

/** True while the live stream brings the changes (the poll indicator says "Live"). */
export function useLive(): boolean {
  const source = useContext(LiveStateContext) ?? NO_LIVE;
  return useSyncExternalStore(source.subscribe, source.state, () => 'down') === 'live';
}
