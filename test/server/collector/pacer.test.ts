import { describe, expect, it } from 'vitest';
import { createPacer } from '../../../server/collector/pacer';
import type { Clock } from '../../../server/lib/clock';

// The collector's pace on a simulated clock: the Activity rule's budget (evenly spread, never more than
// the budget in a minute), and a 429 that halves it and holds everything until its Retry-After.

function simulatedClock(start = 0): Clock & { waited: number[] } {
  let now = start;
  const waited: number[] = [];
  return {
    waited,
    now: () => now,
    wait: (ms) => {
      waited.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

const never = new AbortController().signal;

describe('the collector’s pacer', () => {
  it('spreads a source’s requests evenly inside its budget: 300 a minute is one every 200 ms', async () => {
    const clock = simulatedClock();
    const pacer = createPacer(300, clock);
    const sentAt: number[] = [];
    for (let i = 0; i < 600; i++) {
      await pacer.turn('idle', never);
      sentAt.push(clock.now());
    }
    expect(sentAt.slice(0, 3)).toEqual([0, 200, 400]);
    for (const at of sentAt) expect(sentAt.filter((t) => t > at - 60_000 && t <= at).length).toBeLessThanOrEqual(300);
    expect(pacer.count()).toBe(600);
  });

  it('after a 429 sends nothing before its Retry-After, then at half the budget', async () => {
    const clock = simulatedClock();
    const pacer = createPacer(300, clock);
    await pacer.turn('idle', never);
    pacer.rateLimited(10_000);
    await pacer.turn('idle', never);
    expect(clock.now()).toBe(10_000);
    await pacer.turn('idle', never);
    expect(clock.now()).toBe(10_400);
    expect(pacer.state().slowDown).toMatchObject({ since: 0, notBefore: 10_000 });
  });
});
