import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeadlineExceeded, settledWithin, withDeadline } from '../../../server/lib/deadline';

describe('the one deadline', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('gives the work’s answer when it comes in time, and leaves no timer behind', async () => {
    await expect(withDeadline(Promise.resolve('answer'), 1_000)).resolves.toBe('answer');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('passes the work’s own failure on', async () => {
    await expect(withDeadline(Promise.reject(new Error('refused')), 1_000)).rejects.toThrow('refused');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fails with DeadlineExceeded once the time is up and the work has not answered', async () => {
    const late = withDeadline(new Promise(() => undefined), 2_000);
    const outcome = expect(late).rejects.toBeInstanceOf(DeadlineExceeded);
    await vi.advanceTimersByTimeAsync(2_000);
    await outcome;
  });

  it('gives undefined past the deadline for a wait that goes on without the answer', async () => {
    const waited = settledWithin(new Promise<string>(() => undefined), 500);
    await vi.advanceTimersByTimeAsync(500);
    await expect(waited).resolves.toBeUndefined();
    await expect(settledWithin(Promise.resolve(7), 500)).resolves.toBe(7);
  });
});
