import { createContext, useContext } from 'react';
import { setApiKey } from '../../api/credentials';

// Where the key may live (DESIGN §5): memory and sessionStorage, or localStorage when the person
// asked to be remembered. Never a URL, a log line or an error message.
const STORAGE_KEY = 'ops-console.api-key';

export type SignOutReason = 'signed-out' | 'rejected' | 'revoked';

export interface SessionState {
  apiKey: string | null;
  remembered: boolean;
  /** Why the key screen is showing again, if it is not the first visit. */
  signedOutBecause: SignOutReason | null;
}

export interface SessionStore {
  getState: () => SessionState;
  subscribe: (listener: () => void) => () => void;
  signIn: (apiKey: string, remember: boolean) => void;
  signOut: (reason: SignOutReason) => void;
}

function safeStorage(kind: 'session' | 'local'): Storage | null {
  try {
    return kind === 'session' ? window.sessionStorage : window.localStorage;
  } catch {
    return null;
  }
}

export function createSessionStore(onSignedOut: () => void): SessionStore {
  const fromSession = safeStorage('session')?.getItem(STORAGE_KEY) ?? null;
  const fromLocal = safeStorage('local')?.getItem(STORAGE_KEY) ?? null;
  let state: SessionState = {
    apiKey: fromSession ?? fromLocal,
    remembered: fromSession === null && fromLocal !== null,
    signedOutBecause: null,
  };
  setApiKey(state.apiKey);
  const listeners = new Set<() => void>();
  const set = (next: SessionState) => {
    state = next;
    setApiKey(next.apiKey);
    listeners.forEach((l) => l());
  };

  return {
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    signIn(apiKey, remember) {
      safeStorage('session')?.setItem(STORAGE_KEY, apiKey);
      if (remember) safeStorage('local')?.setItem(STORAGE_KEY, apiKey);
      else safeStorage('local')?.removeItem(STORAGE_KEY);
      set({ apiKey, remembered: remember, signedOutBecause: null });
    },
    signOut(reason) {
      if (state.apiKey === null && reason !== 'signed-out') return;
      safeStorage('session')?.removeItem(STORAGE_KEY);
      safeStorage('local')?.removeItem(STORAGE_KEY);
      set({ apiKey: null, remembered: false, signedOutBecause: reason });
      onSignedOut();
    },
  };
}

export const SessionContext = createContext<SessionStore | null>(null);

export function useSessionStore(): SessionStore {
  const store = useContext(SessionContext);
  if (!store) throw new Error('useSessionStore needs <SessionContext.Provider>');
  return store;
}
