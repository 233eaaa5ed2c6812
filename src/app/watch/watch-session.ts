import type { SessionStore } from '../session';
import type { WatchStore } from './watch-store';

/**
 * Names a key's watch list without storing the key: SHA-256 of the key with a console-specific prefix
 * (so the value is not the plain key hash a server may keep). Null where Web Crypto is unavailable.
 */
export async function watchNamespace(apiKey: string): Promise<string | null> {
  try {
    // `crypto.subtle` is missing on insecure origins: the call throws and the list stays in memory.
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`ops-console.watch:${apiKey}`));
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
  } catch {
    return null;
  }
}

/** Opens the signed-in key's list whenever the key changes; signing out clears it through `store.signOut()`. */
export function bindWatchToSession(store: WatchStore, session: SessionStore): void {
  let current: string | null = null;
  const follow = () => {
    const { apiKey } = session.getState();
    if (apiKey === current) return;
    current = apiKey;
    if (apiKey === null) return;
    void watchNamespace(apiKey).then((namespace) => {
      if (namespace !== null && current === apiKey) store.open(namespace);
    });
  };
  follow();
  session.subscribe(follow);
}
