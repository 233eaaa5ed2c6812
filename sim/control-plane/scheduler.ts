// The scheduler of background work: effects due at a simulated time (an operation's end, an idle
// compute's suspend, the next availability check). Nothing runs on a timer; `catchUp` applies whatever
// is due whenever the control plane is asked anything, so the clock alone decides what has happened.

interface ScheduledEvent {
  atMs: number;
  seq: number;
  run: (atMs: number) => void;
}

export type Scheduler = ReturnType<typeof createScheduler>;

export function createScheduler() {
  // A min-heap ordered by time, then by insertion, so simultaneous effects apply in the order planned.
  const events: ScheduledEvent[] = [];
  let eventSeq = 0;

  function earlier(a: ScheduledEvent | undefined, b: ScheduledEvent | undefined): boolean {
    if (!a || !b) return false;
    return a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);
  }

  function swap(i: number, j: number): void {
    const a = events[i];
    const b = events[j];
    if (a && b) {
      events[i] = b;
      events[j] = a;
    }
  }

  function pop(): ScheduledEvent | undefined {
    const top = events[0];
    const last = events.pop();
    if (events.length > 0 && last) {
      events[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let smallest = i;
        if (l < events.length && earlier(events[l], events[smallest])) smallest = l;
        if (r < events.length && earlier(events[r], events[smallest])) smallest = r;
        if (smallest === i) break;
        swap(i, smallest);
        i = smallest;
      }
    }
    return top;
  }

  return {
    /** Runs `run(atMs)` once the world is brought up to `atMs` or later. */
    schedule: (atMs: number, run: (atMs: number) => void): void => {
      events.push({ atMs, seq: eventSeq++, run });
      let i = events.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!earlier(events[i], events[parent])) break;
        swap(i, parent);
        i = parent;
      }
    },

    /** Applies every effect due by `nowMs`, in time order; incremental, so each call only does new work. */
    catchUp: (nowMs: number): void => {
      for (let next = events[0]; next && next.atMs <= nowMs; next = events[0]) {
        pop();
        next.run(next.atMs);
      }
    },
  };
}
