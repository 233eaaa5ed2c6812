import type { SessionStore } from './session-store';

/**
 * Calls `onKey` with the session's fingerprint (the server's HMAC of the key: what names a stored watch
 * list and the locks and channel tabs share, never the key) now and whenever the session changes, and
 * `onChange` first on every change, sign-out included.
 */
export function followSessionNamespace(session: SessionStore, { onKey, onChange }: { onKey: (namespace: string) => void; onChange?: () => void }): void {
  let current: string | null = null;
  const follow = () => {
    const { fingerprint } = session.getState();
    if (fingerprint === current) return;
    current = fingerprint;
    onChange?.();
    if (fingerprint !== null) onKey(fingerprint);
  };
  follow();
  session.subscribe(follow);
}
