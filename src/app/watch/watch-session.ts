import { followKeyNamespace, keyNamespace } from '../../features/session/key-namespace';
import type { SessionStore } from '../../features/session/session-store';
import type { WatchStore } from './watch-store';

/** The name a key's watch list is stored under; see keyNamespace. */
export const watchNamespace = (apiKey: string) => keyNamespace('watch', apiKey);

/** Opens the signed-in key's list whenever the key changes; signing out clears it through `store.signOut()`. */
export function bindWatchToSession(store: WatchStore, session: SessionStore): void {
  // Without Web Crypto the list stays in memory only.
  followKeyNamespace(session, 'watch', {
    onKey: (namespace) => {
      if (namespace !== null) store.open(namespace);
    },
  });
}
