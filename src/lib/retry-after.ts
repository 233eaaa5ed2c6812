/**
 * Milliseconds a `Retry-After` header asks for (delay-seconds or an HTTP date, RFC 9110 §10.2.3), or
 * undefined when absent or unreadable. The one reading of it: the page's requests, the server's own reads
 * of the API and its webhook deliveries all ask this function.
 */
export function parseRetryAfter(header: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1_000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
