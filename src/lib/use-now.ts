import { useCallback, useContext, useSyncExternalStore } from 'react';
import { RenderTimeContext } from './render-time';

// One ticker per interval, shared by every component that asks for it: everything on screen that
// counts (a countdown in a notice and the same countdown on the page) reads the very same `now`.
interface Ticker {
  now: number;
  listeners: Set<() => void>;
  timer: ReturnType<typeof setInterval> | undefined;
}

const tickers = new Map<number, Ticker>();

function tickerFor(intervalMs: number): Ticker {
  let ticker = tickers.get(intervalMs);
  if (!ticker) {
    ticker = { now: Date.now(), listeners: new Set(), timer: undefined };
    tickers.set(intervalMs, ticker);
  }
  return ticker;
}

function subscribeTo(intervalMs: number, listener: () => void): () => void {
  const ticker = tickerFor(intervalMs);
  ticker.listeners.add(listener);
  if (ticker.timer === undefined) {
    // Idle until now: catch up at once, then tick.
    ticker.now = Date.now();
    ticker.timer = setInterval(() => {
      ticker.now = Date.now();
      ticker.listeners.forEach((l) => l());
    }, intervalMs);
  }
  return () => {
    ticker.listeners.delete(listener);
    if (ticker.listeners.size === 0 && ticker.timer !== undefined) {
      clearInterval(ticker.timer);
      ticker.timer = undefined;
    }
  };
}

/**
 * The current time, re-rendered every `intervalMs` while `active`; drives countdowns, live durations and
 * "Ns ago". On the server and while hydrating its HTML, the render time the page was rendered at.
 */
export function useNow(intervalMs = 1_000, active = true): number {
  const renderedAt = useContext(RenderTimeContext);
  const subscribe = useCallback((listener: () => void) => (active ? subscribeTo(intervalMs, listener) : () => undefined), [intervalMs, active]);
  const snapshot = () => tickerFor(intervalMs).now;
  return useSyncExternalStore(subscribe, snapshot, renderedAt === null ? snapshot : () => renderedAt);
}
