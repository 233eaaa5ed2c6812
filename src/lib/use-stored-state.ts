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

function write(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Storage may be full or disabled; the preference then lasts only until the next render.
  }
  listeners.forEach((l) => l());
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('storage', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', listener);
  };
}

function useStoredRaw(key: string): string | null {
  return useSyncExternalStore(
    subscribe,
    () => read(key),
    () => null,
  );
}

export function useStoredNumber(key: string, fallback: number): [number, (value: number) => void] {
  const raw = useStoredRaw(key);
  const parsed = raw === null ? NaN : Number(raw);
  const value = Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
  const set = useCallback((next: number) => write(key, String(next)), [key]);
  return [value, set];
}

/** One of a few named choices; anything else stored (an older version's value, say) reads as `fallback`. */
export function useStoredChoice<T extends string>(key: string, choices: readonly T[], fallback: T): [T, (value: T) => void] {
  const raw = useStoredRaw(key);
  const value = choices.find((choice) => choice === raw) ?? fallback;
  const set = useCallback((next: T) => write(key, next), [key]);
  return [value, set];
}
