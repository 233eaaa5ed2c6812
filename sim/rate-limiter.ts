import { PLATFORM_REQUESTS_PER_MINUTE, PLATFORM_REQUESTS_PER_SECOND_PER_ROUTE } from '../src/config/platform-limits';

export interface RateLimits {
  /** Requests per key per minute (the platform's documented 700). */
  perMinute: number;
  /** Requests per key per route per second (the platform's documented burst of 40). */
  perSecondPerRoute: number;
}

export const PLATFORM_RATE_LIMITS: RateLimits = { perMinute: PLATFORM_REQUESTS_PER_MINUTE, perSecondPerRoute: PLATFORM_REQUESTS_PER_SECOND_PER_ROUTE };

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; reason: string };

interface Window {
  start: number;
  count: number;
}

/**
 * Fixed windows aligned to the clock (minute and second). Simple, deterministic under a fake clock,
 * and enough to exercise a client's 429 + Retry-After handling.
 */
export function createRateLimiter(limits: RateLimits) {
  const minuteWindows = new Map<number, Window>();
  const secondWindows = new Map<string, Window>();

  function current<K>(windows: Map<K, Window>, key: K, start: number): Window {
    const existing = windows.get(key);
    if (existing && existing.start === start) return existing;
    const fresh = { start, count: 0 };
    windows.set(key, fresh);
    return fresh;
  }

  return {
    /** Counts one request of `keyId` on `route` at `nowMs`; refused requests are not counted. */
    consume(keyId: number, route: string, nowMs: number): RateDecision {
      const minuteStart = Math.floor(nowMs / 60_000) * 60_000;
      const secondStart = Math.floor(nowMs / 1000) * 1000;
      const minute = current(minuteWindows, keyId, minuteStart);
      const second = current(secondWindows, `${keyId} ${route}`, secondStart);
      if (minute.count >= limits.perMinute) {
        return {
          allowed: false,
          retryAfterSeconds: Math.max(1, Math.ceil((minuteStart + 60_000 - nowMs) / 1000)),
          reason: `rate limit exceeded: at most ${limits.perMinute} requests per minute per API key`,
        };
      }
      if (second.count >= limits.perSecondPerRoute) {
        return {
          allowed: false,
          retryAfterSeconds: 1,
          reason: `rate limit exceeded: at most ${limits.perSecondPerRoute} requests per second to ${route}`,
        };
      }
      minute.count += 1;
      second.count += 1;
      return { allowed: true };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
