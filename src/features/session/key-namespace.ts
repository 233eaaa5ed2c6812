import type { SessionStore } from './session-store';

/**
 * Names what belongs to one API key (a stored watch list, the locks and channel tabs share) without
 * the key itself: SHA-256 of the key with a console- and purpose-specific prefix, so the value is not
 * the plain key hash a server may keep. Null where Web Crypto is unavailable (insecure origins).
 */
export async function keyNamespace(purpose: 'watch' | 'poll', apiKey: string): Promise<string | null> {
  try {
    // `crypto.subtle` is missing on insecure origins: the call throws.
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`ops-console.${purpose}:${apiKey}`));
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
  } catch {
    return null;
  }
}

/**
 * Calls `onKey` with the signed-in key's namespace now and whenever the key changes (never for a key
 * that has since changed again), and `onChange` first on every change, sign-out included.
 */
export function followKeyNamespace(
  session: SessionStore,
  purpose: 'watch' | 'poll',
  { onKey, onChange }: { onKey: (namespace: string | null) => void; onChange?: () => void },
): void {
  let current: string | null = null;
  const follow = () => {
    const { apiKey } = session.getState();
    if (apiKey === current) return;
    current = apiKey;
    onChange?.();
    if (apiKey === null) return;
    void keyNamespace(purpose, apiKey).then((namespace) => {
      if (current === apiKey) onKey(namespace);
    });
  };
  follow();
  session.subscribe(follow);
}
