import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollector } from '../../../server/collector/collector';
import { createApiBackend } from '../../../server/proxy/api-backend';
import { createApiReader, type ApiReader } from '../../../server/proxy/api-reader';
import { createSeal } from '../../../server/seal/seal';
import type { Db } from '../../../server/store/db';
import { deleteSource, keepSource } from '../../../server/store/sources';
import { openTestStore } from '../store/store-drivers';

// The collector woken after a source was removed (server/collector/collector.ts): its wake answers once the
// removed source's reader has stopped, so a page that reader was writing is in the store by then, never after
// (the archive's callers, and the screen tests emptying the store between tests, count on it).

const KEY = 'collector-wake-key-0000000000000000000';

describe('a wake after a source was removed', () => {
  let store: Db;
  beforeAll(async () => {
    store = (await openTestStore('pglite')).db;
  }, 60_000);
  afterAll(async () => {
    await store.close();
  });

  it('answers once the removed source’s reader has written the page it was writing and stopped', { timeout: 30_000 }, async () => {
    const seal = createSeal('collector-wake-secret-000000000000000');
    await keepSource(store, { id: 'src-1', fingerprint: 'fp-1', sealedKey: seal.seal('kept-key', KEY), keyKind: 'personal', label: 'Demo', now: new Date() });
    const backend = createApiBackend({ simApiKey: KEY, simRateLimits: false });
    const apiRead = createApiReader(backend.fetch);
    // The reader's first page write is held: it has read the page and not yet written it.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let writing = false;
    let readSignal: AbortSignal | undefined;
    const db: Db = {
      query: (text, params) => store.query(text, params),
      transaction: async (fn) => {
        writing = true;
        await held;
        return store.transaction(fn);
      },
      close: () => Promise.resolve(),
    };
    const read: ApiReader = (key, path, schema, options) => {
      readSignal = options?.signal;
      return apiRead(key, path, schema, options);
    };
    const collector = startCollector({ db, read, seal, log: () => undefined, refreshMs: 60 * 60_000 });
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    try {
      await until(() => writing);
      expect(await deleteSource(store, 'src-1')).toBe(true);
      let answered = false;
      const woke = Promise.resolve(collector.wake()).then(() => {
        answered = true;
      });
      // The collector has looked and stopped the reader (its signal is aborted); the reader is still in its write.
      await until(() => readSignal?.aborted === true);
      await new Promise((resolve) => setImmediate(resolve));
      expect(answered).toBe(false);
      release();
      await woke;
      const { rows } = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM operations');
      expect(rows[0]?.n).toBeGreaterThan(0);
      // Nothing of the removed source's is written after the wake's answer.
      await store.query(
        'TRUNCATE operations, operation_day_figures, operation_day_queues, operation_day_project_figures, operation_day_project_queues, operation_month_project_figures, operation_month_project_queues, operation_counts, operation_project_counts CASCADE',
      );
      await collector.wake();
      const after = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM operations');
      expect(after.rows[0]?.n).toBe(0);
    } finally {
      release();
      await collector.stop();
    }
  });
});
