// When this tab sent its requests, over the last minute: what a request that may wait (a walk through
// a long history) paces itself against, so it and everything else the console sends stay inside the
// platform's limits together. Times only; nothing about the requests themselves.

const WINDOW_MS = 60_000;
const sent: number[] = [];

/** Notes one request sent at `at` (request() calls this for every request). */
export function noteRequestSent(at: number = Date.now()): void {
  sent.push(at);
  const cutoff = at - WINDOW_MS;
  let drop = 0;
  while (drop < sent.length && (sent[drop] ?? Infinity) <= cutoff) drop++;
  if (drop > 0) sent.splice(0, drop);
}

/** Send times of the last minute, oldest first. */
export function recentRequests(): readonly number[] {
  return sent;
}
