// The parts of a figures read added up in Node (docs/insights.md, "How a read is cut"): counts summed per key and
// range, and the percentiles taken once over every value or bucket the statements listed, by nearest rank.
import { byKeyThenPeriod, type FigureRow } from './insight-statements';

/** One statement's counts for a key and range, and what its percentiles are taken of: the values (`v,v,…`) or buckets (`b:n,…`). */
export interface FigurePart {
  key: string;
  current: boolean;
  runs: number;
  failed: number;
  uncounted: number;
  retried: number;
  durations: string;
  queues: string;
}

/**
 * Values gathered from statements' lists: those seen once (the rows' own durations) apart, those seen n times (the
 * figures' buckets) with their counts; each in the order they came.
 */
interface Counted {
  once: number[];
  values: number[];
  counts: number[];
}

const noneCounted = (): Counted => ({ once: [], values: [], counts: [] });

/**
 * The numbers of `value,value,…` onto `into`: whole numbers read digit by digit (a duration in milliseconds), any
 * other (a queue's fraction of a millisecond) by Number. Hundreds of thousands over every project's window: no
 * string is made for a whole number.
 */
function addValues(list: string, into: number[]): void {
  let start = 0;
  while (start < list.length) {
    let end = list.indexOf(',', start);
    if (end < 0) end = list.length;
    let value = 0;
    let whole = end > start;
    for (let at = start; at < end && whole; at++) {
      const digit = list.charCodeAt(at) - 48;
      if (digit < 0 || digit > 9) whole = false;
      else value = value * 10 + digit;
    }
    into.push(whole ? value : Number(list.slice(start, end)));
    start = end + 1;
  }
}

/** Adds a statement's list to `into`: `value,value,…` (each seen once) or `bucket:n,bucket:n,…`. */
function addListed(list: string, into: Counted): void {
  if (list === '') return;
  if (!list.includes(':')) {
    addValues(list, into.once);
    return;
  }
  for (const item of list.split(',')) {
    const colon = item.indexOf(':');
    if (colon < 0) into.once.push(Number(item));
    else {
      into.values.push(Number(item.slice(0, colon)));
      into.counts.push(Number(item.slice(colon + 1)));
    }
  }
}

const totalOf = ({ once, counts }: Counted) => counts.reduce((sum, n) => sum + n, once.length);

/**
 * The value at each share of `counted` by nearest rank, as percentile_disc takes it (the first value with at least
 * that share at or below it), each given as `valueOf` says (a bucket as the value it stands for). Values seen once
 * only are sorted as numbers in place (a typed array's own sort) and the rank read off; with counts, the values are
 * walked in order adding them up.
 */
function nearestRanks(counted: Counted, shares: readonly number[], valueOf: (value: number) => number): (number | null)[] {
  const total = totalOf(counted);
  if (total === 0) return shares.map(() => null);
  const ranks = shares.map((share) => Math.max(1, Math.ceil(share * total)));
  if (counted.values.length === 0) {
    const sorted = new Float64Array(counted.once).sort();
    return ranks.map((rank) => valueOf(sorted[rank - 1] ?? 0));
  }
  const values = [...counted.values, ...counted.once];
  const counts = [...counted.counts, ...counted.once.map(() => 1)];
  const order = values.map((_, i) => i).sort((a, b) => (values[a] ?? 0) - (values[b] ?? 0));
  return ranks.map((rank) => {
    let upTo = 0;
    for (const i of order) {
      upTo += counts[i] ?? 0;
      if (upTo >= rank) return valueOf(values[i] ?? 0);
    }
    return null;
  });
}

/** A key and range's parts added up. */
type FigureSum = Omit<FigurePart, 'durations' | 'queues'> & { durations: Counted; queues: Counted };

/**
 * The parts of a read (one statement or several, cut anywhere) added up per key and range: counts summed, the
 * durations and queues gathered, the percentiles taken once over all of them (`valueOf`: what a listed value
 * stands for, itself for the rows' own values, a bucket's middle for the figures').
 */
export function figureTally(valueOf: (value: number) => number) {
  const tally = new Map<string, FigureSum>();
  return {
    /** Adds a statement's parts; gives how many runs they held. */
    add(parts: readonly FigurePart[]): number {
      let runs = 0;
      for (const part of parts) {
        const id = `${part.current ? 'c' : 'p'}${part.key}`;
        let sum = tally.get(id);
        if (!sum) {
          const empty = { runs: 0, failed: 0, uncounted: 0, retried: 0, durations: noneCounted(), queues: noneCounted() };
          sum = { key: part.key, current: part.current, ...empty };
          tally.set(id, sum);
        }
        sum.runs += part.runs;
        sum.failed += part.failed;
        sum.uncounted += part.uncounted;
        sum.retried += part.retried;
        addListed(part.durations, sum.durations);
        addListed(part.queues, sum.queues);
        runs += part.runs;
      }
      return runs;
    },
    rows(): FigureRow[] {
      return [...tally.values()]
        .filter((sum) => sum.runs > 0)
        .sort(byKeyThenPeriod)
        .map((sum) => {
          const [p50 = null, p95 = null] = nearestRanks(sum.durations, [0.5, 0.95], valueOf);
          const [queueP50 = null] = nearestRanks(sum.queues, [0.5], valueOf);
          return {
            key: sum.key,
            period: sum.current ? 'current' : 'previous',
            runs: sum.runs,
            failed: sum.failed,
            uncounted: sum.uncounted,
            retried: sum.retried,
            p50_ms: p50,
            p95_ms: p95,
            queue_p50_ms: queueP50,
            queued: totalOf(sum.queues),
            timed: totalOf(sum.durations),
          };
        });
    },
  };
}
