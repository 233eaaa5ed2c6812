// How the collector is doing, seen from its reads of the API (docs/operations.md, "Readiness"): the last time
// the API answered one, and the last time one got no answer. The collector's lag is the time since it last read
// the API successfully; it reads through this watch (process/compose.ts), so nothing in collector/ counts.
import type { ApiAnswer, ApiReader } from '../proxy/api-reader';

export interface CollectorWatch {
  /** The collector's reader: the API reader, its answers noted. */
  read: ApiReader;
  /** When the API last answered one of its reads (ms since the epoch), if ever. */
  lastSuccessAt: () => number | undefined;
  /** Since when its reads get no usable answer (no answer, 5xx, 429): undefined once one is answered again. */
  failingSince: () => number | undefined;
}

/** The API answered: a 4xx other than 429 is an answer about the request (a project gone), not the API failing. */
function answered(answer: ApiAnswer<unknown>): boolean {
  return answer.ok || (answer.status >= 400 && answer.status < 500 && answer.status !== 429);
}

export function watchCollectorReads(read: ApiReader, now: () => number = Date.now): CollectorWatch {
  let success: number | undefined;
  let failing: number | undefined;
  return {
    read: async (apiKey, path, schema, options) => {
      const answer = await read(apiKey, path, schema, options);
      if (answered(answer)) {
        success = now();
        failing = undefined;
      } else if (!options?.signal?.aborted) {
        failing ??= now();
      }
      return answer;
    },
    lastSuccessAt: () => success,
    failingSince: () => failing,
  };
}
