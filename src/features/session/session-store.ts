import { createContext, useContext } from 'react';
import { SIGNED_OUT, type KeyKind, type PageSession } from '../../api/page-data';
import type { SignOutReason } from '../../config/session';
import type { Person } from '../../model/roles';
import { postSignOut } from './session-api';
import type { SessionChannel } from './session-channel';

// The page's view of the session the console's server holds (docs/session-and-security.md): whether one is open, its
// fingerprint and the key's kind. The key itself is posted once, at sign-in, and never kept here.

export type { SignOutReason };

export interface SessionState {
  signedIn: boolean;
  /** Names the session's key for tab sharing and the watch list's storage; never the key. */
  fingerprint: string | null;
  keyKind: KeyKind | null;
  remembered: boolean;
  /** No session outlives a restart of the console's server (it keeps no secret): the key screen promises no 30 days. */
  endsOnRestart: boolean;
  /** Why the key screen is showing again, if it is not the first visit; `elsewhere` when another tab did it. */
  signedOutBecause: SignOutReason | null;
  signedOutElsewhere: boolean;
  /** Team sign-in (docs/team.md): the signed-in person and their role; null with a key. */
  person: Person | null;
  /** Team sign-in's mode: no key screen; signing in is the identity provider's (or the proxy's). */
  team: 'oidc' | 'proxy' | null;
}

export interface SessionStore {
  getState: () => SessionState;
  subscribe: (listener: () => void) => () => void;
  /** The server opened `session` (the key screen posted the key: sign-in-post.ts); every tab of this browser follows. */
  signedIn: (session: PageSession) => void;
  /**
   * Ends the session. `by`: the person (or a screen that knows why), or the server's own 401 (a cookie that no
   * longer opens a session): one that comes while a rejection waits is that rejection's doing (the API's 401
   * ended the session and expired its cookie), so the rejection's reason stands.
   */
  signOut: (reason: SignOutReason, by?: 'page' | 'server') => void;
  /**
   * While held, a rejection (a 401 from the API anywhere) waits instead of signing out: the holder is
   * about to learn a truer reason (it revoked a key, maybe this very one, so reads in flight may be
   * refused for that). Release after signing out with that reason, if any; a rejection that waited
   * and was not superseded then signs out.
   */
  holdRejections: () => () => void;
}

export interface SessionStoreOptions {
  /** What the server said in the page's data block. */
  initial?: PageSession;
  /** The page came with a session that had already ended (the data block says why): the key screen says so. */
  endedBecause?: SignOutReason | undefined;
  /** Runs on every sign-out, and before another key's session replaces this one. */
  onSignedOut: () => void;
  /** The other tabs of this browser; null to stay on its own. */
  channel?: SessionChannel | null;
}

function stateOf(session: PageSession): SessionState {
  const { signedIn, fingerprint, keyKind, remembered } = session.signedIn ? session : SIGNED_OUT;
  const person = session.signedIn ? (session.person ?? null) : null;
  return {
    signedIn,
    fingerprint,
    keyKind,
    remembered,
    endsOnRestart: session.endsOnRestart === true,
    signedOutBecause: null,
    signedOutElsewhere: false,
    person,
    team: session.team ?? null,
  };
}

export function createSessionStore({ initial = SIGNED_OUT, endedBecause, onSignedOut, channel = null }: SessionStoreOptions): SessionStore {
  let state: SessionState = { ...stateOf(initial), signedOutBecause: initial.signedIn ? null : (endedBecause ?? null) };
  const listeners = new Set<() => void>();
  const set = (next: SessionState) => {
    state = next;
    listeners.forEach((l) => l());
  };
  const adopt = (session: PageSession) => {
    // Another key's session (signed in elsewhere in this browser): nothing of the previous one may stay.
    if (state.signedIn && state.fingerprint !== session.fingerprint) onSignedOut();
    set(stateOf(session));
  };
  // Holders of holdRejections, and whether a rejection came in while they held.
  let holds = 0;
  let rejectionWaiting = false;
  const end = (reason: SignOutReason, elsewhere: boolean) => {
    if (!state.signedIn && reason !== 'signed-out') return;
    rejectionWaiting = false;
    const wasSignedIn = state.signedIn;
    set({ ...stateOf(SIGNED_OUT), endsOnRestart: state.endsOnRestart, team: state.team, signedOutBecause: reason, signedOutElsewhere: elsewhere });
    if (wasSignedIn || !elsewhere) onSignedOut();
  };

  channel?.onMessage((message) => {
    if (message.type === 'signed-in') adopt(message.session);
    else if (message.reason === 'rejected' && holds > 0) rejectionWaiting = true;
    else if (state.signedIn) end(message.reason, true);
  });

  const store: SessionStore = {
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    signedIn(session) {
      adopt(session);
      channel?.post({ type: 'signed-in', session });
    },
    signOut(reason, by = 'page') {
      if (!state.signedIn && reason !== 'signed-out') return;
      if (holds > 0 && (reason === 'rejected' || (by === 'server' && rejectionWaiting))) {
        rejectionWaiting = true;
        return;
      }
      end(reason, false);
      void postSignOut();
      channel?.post({ type: 'signed-out', reason });
    },
    holdRejections() {
      holds += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds -= 1;
        if (holds > 0 || !rejectionWaiting) return;
        rejectionWaiting = false;
        store.signOut('rejected');
      };
    },
  };
  return store;
}

export const SessionContext = createContext<SessionStore | null>(null);

export function useSessionStore(): SessionStore {
  const store = useContext(SessionContext);
  if (!store) throw new Error('useSessionStore needs <SessionContext.Provider>');
  return store;
}
