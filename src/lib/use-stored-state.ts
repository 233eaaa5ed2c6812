import { useCallback, useSyncExternalStore } from 'react';

// Preferences (never secrets) kept in localStorage and shared live by every component that reads them.
const listeners = new Set<() => void>();

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('storage', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', listener);
  };
}

export function useStoredNumber(key: string, fallback: number): [number, (value: number) => void] {
  const raw = useSyncExternalStore(subscribe, () => read(key), () => null);
  const parsed = raw === null ? NaN : Number(raw);
  const value = Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
  const set = useCallback(
    (next: number) => {
      try {
        localStorage.setItem(key, String(next));
      } catch {
        // Storage may be full or disabled; the preference then lasts only until the next render.
      }
      listeners.forEach((l) => l());
    },
    [key],
  );
  return [value, set];
}
