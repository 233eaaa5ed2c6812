// A failure that repeats (the store down, the API unreachable, a receiver down) is logged once when it
// starts and once when it stops, with how many times it failed meanwhile and for how long: not once a
// second for as long as it lasts. Every loop and driver that retries says so through this one mechanism
// (docs/operations.md, "What a failure looks like in the log").
import type { Log, LogFields, LogLevel } from './logger';

export interface Outage {
  /** It failed: the first failure since it last worked is logged (with `message`); the rest are counted. */
  failed: (message: string, fields?: LogFields) => void;
  /** It worked: when it had been failing, one line saying so, with the count and the time it lasted. */
  recovered: () => void;
  /** Failures since it last worked (0: it works). */
  readonly failures: number;
}

export interface OutageOptions {
  /** The failure's event name (`store.unavailable`); its end is `<event>.over`. */
  event: string;
  /** The failure line's level (warn by default). */
  level?: LogLevel;
  /** The line when it works again (`Store: … answers again`), to which ` after 12 s (4 failed tries)` is added. */
  over: string;
  /** What one failure is called in that count, and several (failed try, failed tries by default). */
  failed?: readonly [string, string];
  /** Said after the count (`sign-outs made meanwhile are written`). */
  then?: string;
  /** Facts both lines carry (which store, which webhook). */
  fields?: LogFields;
  now?: () => number;
}

export function createOutage(
  log: Log,
  { event, level = 'warn', over, failed = ['failed try', 'failed tries'], then, fields = {}, now = Date.now }: OutageOptions,
): Outage {
  let failures = 0;
  let since = 0;
  return {
    failed(message, more = {}) {
      if (failures++ > 0) return;
      since = now();
      log(message, { ...fields, ...more, event, level });
    },
    recovered() {
      if (failures === 0) return;
      const seconds = Math.round((now() - since) / 1_000);
      const counted = `${failures} ${failures === 1 ? failed[0] : failed[1]}`;
      log(`${over} after ${seconds} s (${counted})${then ? `; ${then}` : ''}`, {
        ...fields,
        event: `${event}.over`,
        level: 'info',
        failures,
        outage_s: seconds,
      });
      failures = 0;
    },
    get failures() {
      return failures;
    },
  };
}
