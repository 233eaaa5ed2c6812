import type { QueryClient } from '@tanstack/react-query';
import { connectHistoryRefresh } from '../api/operation-history';
import type { ApiError } from '../api/api-error';
import { SIGNED_OUT, type PageSession, type SignInProblem } from '../api/page-data';
import type { Transport } from '../api/request';
import { sharedSchemaOf } from '../api/query-meta';
import { sessionEndOfCode, type SignOutReason } from '../config/session';
import { followSessionNamespace } from '../features/session/key-namespace';
import type { SessionChannel } from '../features/session/session-channel';
import { createSessionStore, type SessionStore } from '../features/session/session-store';
import { connectWatchToQueries } from '../features/watch/watch-queries';
import { createWatchStore, type WatchStore } from '../features/watch/watch-store';
import { createPollSharing, type PollSharing } from '../lib/poll-sharing/poll-sharing';
import { NO_LIVE, type LiveStateSource } from '../lib/poll-sharing/use-shared-polls';
import { createNoticeStore, type NoticeStore } from './notices';
import { createQueryClient } from './query-client';
import { operationOfEvent, postWatches } from '../api/live-watch';
import { operationQueries } from '../api/operations';
import { readMeta } from '../api/query-meta';
import { isInFlight } from '../model/operation-status';

// The console's stores, made without React so main.tsx can make them (and start a deep link's
// requests in the query client) before the app's own code has arrived; and the wiring between
// them (session ↔ query cache, watch list, poll sharing), so the features never import each other.

export interface AppState {
  queryClient: QueryClient;
  session: SessionStore;
  notices: NoticeStore;
  watch: WatchStore;
  pollSharing: PollSharing;
  /** Whether the live stream is in use (docs/live.md): the poll indicator says "Live". */
  live: LiveStateSource;
  /** Why a sign-in form posted before the script arrived failed (the page's data block says). */
  signInProblem?: SignInProblem | undefined;
}

export interface AppStateOptions {
  /** The session the server described in the page's data block. */
  session?: PageSession;
  /** The other tabs of this browser (main.tsx opens it); none in tests unless they ask. */
  channel?: SessionChannel | null;
  /** The production retry policy; tests of single failures may turn it off. */
  retries?: boolean;
  signInProblem?: SignInProblem | undefined;
  /** The page came with a session that had already ended: why (the key screen says it). */
  endedBecause?: SignOutReason | undefined;
  /** The server streams changes (PageData.live): the page opens one stream per browser (docs/live.md). Off unless asked. */
  live?: boolean;
}

/** Why a 401 ends the session: the server's own 401 names how the session ended; any other is the API refusing the key. */
function signOutReasonOf(error: ApiError): SignOutReason {
  return sessionEndOfCode(error.code) ?? 'rejected';
}

export function createAppState({
  session: initial = SIGNED_OUT,
  channel = null,
  retries = true,
  signInProblem,
  endedBecause,
  live: streams = false,
}: AppStateOptions = {}): AppState {
  const notices: NoticeStore = createNoticeStore();
  // The query client and the session end together: signing out (or a 401) empties every cache.
  const holder: { signOutUnauthorized: (error: ApiError) => void } = { signOutUnauthorized: () => undefined };
  const queryClient = createQueryClient({ onUnauthorized: (error) => holder.signOutUnauthorized(error), notices, retries });
  const watch = createWatchStore();
  const session = createSessionStore({
    initial,
    endedBecause,
    channel,
    onSignedOut: () => {
      queryClient.clear();
      notices.clearAll();
      // The watch list belongs to the key: signing out forgets it, in memory and in storage.
      watch.signOut();
    },
  });
  holder.signOutUnauthorized = (error) => session.signOut(signOutReasonOf(error), 'server');
  connectWatchToQueries(watch, queryClient);
  // Every refresh of a project's newest page lands in its loaded history (the one store the screen renders).
  connectHistoryRefresh(queryClient);
  // Each key's watch list is stored under the session's fingerprint (the server's HMAC of the key, never the key).
  followSessionNamespace(session, { onKey: (namespace) => watch.open(namespace) });
  // One poller per query key across this key's tabs, named by the same fingerprint; signing out or
  // changing key releases its locks. Which queries tabs share, and the schema a shared copy must pass,
  // each query factory declares.
  const pollSharing = createPollSharing({ queryClient, schemaFor: sharedSchemaOf });
  followSessionNamespace(session, { onChange: () => pollSharing.close(), onKey: (namespace) => pollSharing.open(namespace) });
  // Only where the server streams and the browser has EventSource (never in tests' jsdom, nor in a render on the server).
  const live = streams && typeof EventSource === 'function' ? lateLive(queryClient, pollSharing, session) : NO_LIVE;
  return { queryClient, session, notices, watch, pollSharing, live, signInProblem };
}

/**
 * The live stream's state now; its code (live-wiring.ts) loads after the first screen, off the initial JS: until
 * then, and if it never loads, the pages poll as they always did (docs/live.md).
 */
function lateLive(queryClient: QueryClient, pollSharing: PollSharing, session: SessionStore): LiveStateSource {
  let state: 'live' | 'down' = 'down';
  const listeners = new Set<() => void>();
  void import('./live-wiring').then(({ connectLive }) => {
    const link = connectLive(queryClient, pollSharing, {
      postWatches,
      operationOfEvent,
      readMeta,
      isInFlight,
      detailKey: (projectId, operationId) => operationQueries.detail(projectId, operationId).queryKey,
      latestKey: (projectId) => [...operationQueries.lists(), { projectId, view: 'latest' }],
    });
    link.subscribe(() => {
      state = link.state();
      for (const listener of [...listeners]) listener();
    });
    followSessionNamespace(session, { onChange: () => link.close(), onKey: (namespace) => link.open(namespace) });
  });
  return {
    state: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * The stores of one server render: the session the request holds, a query client of its own fetching
 * through `transport` (that request's key), and inert stores for what lives only in a browser (the watch
 * list's storage, notices, tab sharing: no storage read, no channel, no lock). Nothing outlives the request.
 */
export function createServerAppState({
  session: initial,
  transport,
  signInProblem,
  endedBecause,
}: {
  session: PageSession;
  transport: Transport;
  /** A signed-out page: why the key screen's form post failed, as the browser's state will say. */
  signInProblem?: SignInProblem | undefined;
  /** A signed-out page: why its session ended, as the browser's state will say. */
  endedBecause?: SignOutReason | undefined;
}): AppState {
  const notices = createNoticeStore();
  // A 401 is the server's to act on (it ends the session): the render reports it, nothing here signs out.
  const queryClient = createQueryClient({ onUnauthorized: () => undefined, notices, retries: false, transport });
  const session = createSessionStore({ initial, endedBecause, onSignedOut: () => undefined });
  const pollSharing = createPollSharing({ queryClient, schemaFor: sharedSchemaOf, locks: undefined, channel: undefined, document: undefined });
  return { queryClient, session, notices, watch: createWatchStore(), pollSharing, live: NO_LIVE, signInProblem };
}
