// The embedded store's thread (docs/architecture.md, "The store"): PGlite's WebAssembly Postgres runs here, off
// the server's event loop, so its start (initdb, migrations), its upkeep and its long reads never hold the
// server's turn. The main thread (pglite-db.ts) sends statements; one runs at a time, taken from three queues in
// order: a request's reads, then heavy reads, then upkeep, which starts only once nothing else has waited for
// a moment, or, after waiting 10 minutes for such a moment, as soon as nothing else waits (a read that arrives
// during a VACUUM still waits for that one statement, and is counted).
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { SqlValue } from './db';
import { crossError, LANES, type FromWorker, type Lane, type ToWorker, type WorkerData } from './pglite-protocol';

interface Job {
  id: number;
  queuedAt: number;
  run: () => Promise<FromWorker>;
  waitedForUpkeep: boolean;
}

type Target = Pick<PGlite, 'query' | 'exec'>;

async function runQuery(target: Target, text: string, params: readonly SqlValue[] | undefined): Promise<unknown[]> {
  // Without parameters, as pg does (the simple protocol), the text may hold several statements (a migration file).
  if (params === undefined) return (await target.exec(text)).at(-1)?.rows ?? [];
  return (await target.query(text, [...params])).rows;
}

async function main(port: NonNullable<typeof parentPort>, data: WorkerData): Promise<void> {
  const send = (message: FromWorker) => port.postMessage(message);
  let pglite: PGlite;
  try {
    if (data.dir !== undefined) await mkdir(data.dir, { recursive: true, mode: 0o700 });
    // A folder PGlite has not made yet (no PG_VERSION) starts as the image, if there is one.
    const fresh = data.dir !== undefined && data.image !== undefined && !existsSync(path.join(data.dir, 'PG_VERSION'));
    const options = {
      ...(data.wasmModule === undefined ? {} : { pgliteWasmModule: data.wasmModule }),
      ...(fresh && data.image !== undefined ? { loadDataDir: new Blob([await readFile(data.image)], { type: 'application/x-gzip' }) } : {}),
    };
    pglite = data.dir === undefined ? new PGlite(options) : new PGlite(data.dir, options);
    await pglite.waitReady;
  } catch (error) {
    send({ kind: 'failed', error: crossError(error) });
    return;
  }

  const queues: Record<Lane, Job[]> = { read: [], heavy: [], upkeep: [] };
  const transactions = new Map<number, { tx: Transaction; end: (commit: boolean) => void }>();
  let nextTx = 1;
  let busy = false;
  let upkeepRunning = false;
  // When something other than upkeep last arrived or ended: upkeep starts only after a quiet moment.
  let lastOther = 0;
  let wakeAt: NodeJS.Timeout | undefined;
  let closing: (() => void) | undefined;

  const next = (): { job: Job; lane: Lane } | undefined => {
    for (const lane of LANES) {
      const job = queues[lane][0];
      if (!job) continue;
      if (lane === 'upkeep') {
        const quietFor = performance.now() - lastOther;
        // Never starved for good: one that has waited `upkeepMaxWaitMs` starts at the next moment nothing else waits.
        if (quietFor < data.upkeepQuietMs && performance.now() - job.queuedAt < data.upkeepMaxWaitMs) {
          clearTimeout(wakeAt);
          wakeAt = setTimeout(pump, data.upkeepQuietMs - quietFor);
          return undefined;
        }
      }
      queues[lane].shift();
      return { job, lane };
    }
    return undefined;
  };

  function pump(): void {
    if (busy) return;
    const taken = next();
    if (!taken) {
      if (closing && LANES.every((lane) => queues[lane].length === 0)) closing();
      return;
    }
    busy = true;
    upkeepRunning = taken.lane === 'upkeep';
    void taken.job.run().then((answer) => {
      busy = false;
      upkeepRunning = false;
      if (taken.lane !== 'upkeep') lastOther = performance.now();
      if ('waitedForUpkeep' in answer) answer.waitedForUpkeep = taken.job.waitedForUpkeep;
      send(answer);
      pump();
    });
  }

  const enqueue = (lane: Lane, id: number, run: () => Promise<FromWorker>) => {
    if (lane !== 'upkeep') lastOther = performance.now();
    queues[lane].push({ id, queuedAt: performance.now(), run, waitedForUpkeep: upkeepRunning && lane !== 'upkeep' });
    pump();
  };

  const answer = async (id: number, work: () => Promise<unknown[]>): Promise<FromWorker> => {
    try {
      return { kind: 'done', id, rows: await work(), waitedForUpkeep: false };
    } catch (error) {
      return { kind: 'error', id, error: crossError(error), waitedForUpkeep: false };
    }
  };

  port.on('message', (message: ToWorker) => {
    switch (message.kind) {
      case 'query': {
        if (message.tx !== undefined) {
          // A transaction's statements run at once: the transaction holds the store's turn already.
          const open = transactions.get(message.tx);
          void answer(message.id, () =>
            open ? runQuery(open.tx, message.text, message.params) : Promise.reject(new Error('The transaction has ended.')),
          ).then(send);
          return;
        }
        enqueue(message.lane, message.id, () => answer(message.id, () => runQuery(pglite, message.text, message.params)));
        return;
      }
      case 'begin': {
        // The transaction holds the turn until the main thread ends it: its fn runs there, statement by statement.
        enqueue(message.lane, message.id, () => {
          const tx = nextTx++;
          return new Promise<FromWorker>((ended) => {
            let began = false;
            pglite
              .transaction(
                (handle) =>
                  new Promise<void>((commit, rollback) => {
                    transactions.set(tx, { tx: handle, end: (yes) => (yes ? commit() : rollback(new RolledBack())) });
                    began = true;
                    send({ kind: 'done', id: message.id, tx, waitedForUpkeep: false });
                  }),
              )
              .then(
                () => ended({ kind: 'done', id: -tx, rows: [], waitedForUpkeep: false }),
                (error: unknown) =>
                  ended(
                    error instanceof RolledBack
                      ? { kind: 'done', id: -tx, rows: [], waitedForUpkeep: false }
                      : began
                        ? { kind: 'error', id: -tx, error: crossError(error), waitedForUpkeep: false }
                        : { kind: 'error', id: message.id, error: crossError(error), waitedForUpkeep: false },
                  ),
              )
              .finally(() => transactions.delete(tx));
          });
        });
        return;
      }
      case 'end': {
        // Answered (with id -tx) once the commit or rollback is done: the job above sends it.
        transactions.get(message.tx)?.end(message.commit);
        return;
      }
      case 'close': {
        closing = () => {
          closing = undefined;
          void pglite.close().then(
            () => send({ kind: 'done', id: message.id, rows: [], waitedForUpkeep: false }),
            (error: unknown) => send({ kind: 'error', id: message.id, error: crossError(error), waitedForUpkeep: false }),
          );
        };
        pump();
        return;
      }
    }
  });
  send({ kind: 'ready' });
}

class RolledBack extends Error {}

if (parentPort) await main(parentPort, workerData as WorkerData);
