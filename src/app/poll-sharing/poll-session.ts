import { followKeyNamespace } from '../key-namespace';
import type { SessionStore } from '../session';
import type { PollSharing } from './poll-sharing';

/**
 * Shares polling with the signed-in key's other tabs, under a name derived from the key (never the
 * key; null without Web Crypto, and each tab then polls for itself). Signing out or changing key
 * releases the locks and closes the channel.
 */
export function bindPollSharingToSession(sharing: PollSharing, session: SessionStore): void {
  followKeyNamespace(session, 'poll', { onChange: () => sharing.close(), onKey: (namespace) => sharing.open(namespace) });
}
