import { useCallback, useEffect, useRef } from 'react';

/**
 * A fresh AbortSignal per request (starting one aborts the last), and `abort()` to stop the current
 * one, also between its 423 retries. Unmounting aborts too, when asked: closing a dialog cancels.
 */
export function useAbortSignal({ abortOnUnmount }: { abortOnUnmount: boolean }) {
  const controller = useRef<AbortController | null>(null);
  const next = useCallback(() => {
    controller.current?.abort();
    controller.current = new AbortController();
    return controller.current.signal;
  }, []);
  const abort = useCallback(() => {
    controller.current?.abort();
    controller.current = null;
  }, []);
  useEffect(() => (abortOnUnmount ? abort : undefined), [abort, abortOnUnmount]);
  return { next, abort };
}
