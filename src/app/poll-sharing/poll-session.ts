import type { SessionStore } from '../session';
import type { PollSharing } from './poll-sharing';

/**
 * Names what the tabs of one key share (locks, channel) without the key: SHA-256 of the key with a
 * console-specific prefix. Null where Web Crypto is unavailable: each tab then polls for itself.
 */
export async function pollNamespace(apiKey: string): Promise<string | null> {
  try {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`ops-console.poll:${apiKey}`));
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
  } catch {
    return null;
  }
}

/** Shares polling with the signed-in key's other tabs; signing out releases the locks and closes the channel. */
export function bindPollSharingToSession(sharing: PollSharing, session: SessionStore): void {
  let current: string | null = null;
  const follow = () => {
    const { apiKey } = session.getState();
    if (apiKey === current) return;
    current = apiKey;
    sharing.close();
    if (apiKey === null) return;
    void pollNamespace(apiKey).then((namespace) => {
      if (current === apiKey) sharing.open(namespace);
    });
  };
  follow();
  session.subscribe(follow);
}
