// The one deadline on a promise: a plain timer raced against the work and cleared as soon as either settles
// (AbortSignal.timeout inside AbortSignal.any can be collected on Node 20 and never fire). The timer never
// holds the process open by itself.

/** What a promise given to withDeadline rejects with once its time is up. */
export class DeadlineExceeded extends Error {
  constructor(readonly ms: number) {
    super(`No answer within ${ms / 1_000} s.`);
    this.name = 'DeadlineExceeded';
  }
}

/** `work`'s outcome, or a DeadlineExceeded rejection once `ms` pass first. */
export async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(ms)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `work`'s value, or undefined once `ms` pass first (for waits that go on without the answer). */
export function settledWithin<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  return withDeadline(work, ms).catch((error: unknown) => {
    if (error instanceof DeadlineExceeded) return undefined;
    throw error;
  });
}
