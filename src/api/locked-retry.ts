import { useIsMutating } from '@tanstack/react-query';
import { useEffect } from 'react';
import { usePollInterval } from './use-poll-interval';
import { lockedRetryBase, maySendAgain, retryDelay } from './retry-policy';

/** Tries in all (the first request included) before a refusal is handed to the person to retry by hand. */
export const LOCKED_MAX_TRIES = 5;

/**
 * Mutation options that resend a change the platform refused before anything happened (423, 429,
 * 503: api/retry-policy.ts decides) with its backoff, never sooner than Retry-After, up to
 * LOCKED_MAX_TRIES tries in all.
 */
export function retryWhileLocked(baseMs: number) {
  return {
    retry: (failures: number, error: Error) => maySendAgain(error) && failures < LOCKED_MAX_TRIES - 1,
    // React Query counts the failures before this one; the policy counts this one too.
    retryDelay: (failures: number, error: Error) => retryDelay(failures + 1, error, baseMs),
  };
}

/** Variables of a request that starts operations: the caller may abort it, also between 423 retries. */
export interface Abortable {
  signal?: AbortSignal | undefined;
}

/** How a screen hears about the operations a request started, even if it unmounted meanwhile. */
export interface StartOptions<Data, Variables> {
  onStarted?: (data: Data, variables: Variables) => void;
}

/** The first wait before resending a change refused with 423, at the person's chosen poll interval (api/retry-policy.ts decides). */
export function useLockedRetryBase(): number {
  const [intervalMs] = usePollInterval();
  return lockedRetryBase(intervalMs);
}

/**
 * While a change waits to be sent again (refused for now, its next try counting down), leaving or
 * reloading the page would drop it without a word: the browser asks first.
 */
export function useWarnBeforeDroppingQueuedChanges(): void {
  const queued = useIsMutating({ predicate: (mutation) => mutation.state.status === 'pending' && mutation.state.failureCount > 0 });
  useEffect(() => {
    if (queued === 0) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [queued]);
}
