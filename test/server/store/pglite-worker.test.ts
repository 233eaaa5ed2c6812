import { PGlite } from '@electric-sql/pglite';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../server/store/db';
import { inLane } from '../../../server/store/lanes';
import { STORE_DIR } from '../../../server/store';
import { openPgliteDb } from '../../../server/store/pglite-db';
import { pgliteDataDir } from '../../support/pglite-template';

// The embedded store in its worker thread (server/store/pglite-db.ts, pglite-worker.ts; docs/architecture.md,
// "The store"): the rows and errors the tables' modules read come across as PGlite gives them in process, a
// transaction commits or rolls back as before, and a request's statement goes before heavy reads and upkeep
// that were queued ahead of it. No clock: the order is held by an open transaction, then let go.

const TYPES = `SELECT $1::timestamptz AS at, 9007199254740993::bigint AS big, 12.50::numeric AS amount, '\\x00ff10'::bytea AS bytes,
  '{"a":[1,"two",null],"b":{"c":true}}'::jsonb AS doc, ARRAY['x','y']::text[] AS texts, $2::int[] AS ints, $3::text AS said,
  NULL::text AS none, 2.5::float8 AS ratio, true AS yes, '2026-12-03'::date AS day, interval '90 minutes' AS span`;
const PARAMS = [new Date('2026-12-03T06:00:00.123Z'), [1, 2, 3], 'o’clock'] as const;

describe('the embedded store in a worker thread', () => {
  let db: Db;
  let direct: PGlite;
  let worker: Worker | undefined;

  beforeAll(async () => {
    [db, direct] = await Promise.all([openPgliteDb(undefined, { onWorker: (started) => (worker = started) }), PGlite.create()]);
    await db.query('CREATE TABLE sources (id text PRIMARY KEY, label text NOT NULL, CONSTRAINT sources_label_key UNIQUE (label))');
  }, 60_000);

  afterAll(async () => {
    await Promise.all([db.close(), direct.close()]);
  });

  it('gives the rows PGlite gives in process: dates, bigints, numerics as text, bytes, JSON, arrays', async () => {
    const { rows } = await db.query<Record<string, unknown>>(TYPES, [...PARAMS]);
    const inProcess = (await direct.query<Record<string, unknown>>(TYPES, [...PARAMS])).rows;
    expect(rows).toEqual(inProcess);
    const row = rows[0] ?? {};
    expect(row.at).toBeInstanceOf(Date);
    expect((row.at as Date).toISOString()).toBe('2026-12-03T06:00:00.123Z');
    expect(row.big).toBe(inProcess[0]?.big);
    expect(row.amount).toBe('12.50');
    expect(row.bytes).toBeInstanceOf(Uint8Array);
    expect([...(row.bytes as Uint8Array)]).toEqual([0, 255, 16]);
    expect(row.doc).toEqual({ a: [1, 'two', null], b: { c: true } });
    expect(row).toMatchObject({ texts: ['x', 'y'], ints: [1, 2, 3], said: 'o’clock', none: null, ratio: 2.5, yes: true });
  });

  it('runs a text of several statements without parameters, answering with the last one’s rows', async () => {
    const { rows } = await db.query<{ n: number }>(
      'CREATE TEMP TABLE several (n int); INSERT INTO several VALUES (1), (2); SELECT sum(n)::int AS n FROM several',
    );
    expect(rows).toEqual([{ n: 3 }]);
  });

  it('throws Errors with Postgres’s fields: the code, the constraint, the detail', async () => {
    await db.query('INSERT INTO sources VALUES ($1, $2)', ['s-1', 'kept']);
    const error: unknown = await db.query('INSERT INTO sources VALUES ($1, $2)', ['s-2', 'kept']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      message: 'duplicate key value violates unique constraint "sources_label_key"',
      code: '23505',
      constraint: 'sources_label_key',
      table: 'sources',
      detail: 'Key (label)=(kept) already exists.',
    });
    await expect(db.query('SELECT * FROM no_such_table')).rejects.toMatchObject({ code: '42P01' });
  });

  it('commits a transaction that resolves, with its value, and rolls back one that throws', async () => {
    const value = await db.transaction(async (tx) => {
      await tx.query('INSERT INTO sources VALUES ($1, $2)', ['s-3', 'committed']);
      return (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM sources')).rows[0]?.n;
    });
    expect(value).toBe(2);
    const thrown = new Error('changed its mind');
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO sources VALUES ($1, $2)', ['s-4', 'rolled back']);
        throw thrown;
      }),
    ).rejects.toBe(thrown);
    // A statement that fails inside one: the transaction rolls back, its error as Postgres said it.
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO sources VALUES ($1, $2)', ['s-5', 'also rolled back']);
        await tx.query('INSERT INTO sources VALUES ($1, $2)', ['s-6', 'kept']);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    const { rows } = await db.query<{ id: string }>('SELECT id FROM sources ORDER BY id');
    expect(rows.map((row) => row.id)).toEqual(['s-1', 's-3']);
  });

  it('answers a request’s statement before the heavy reads and the upkeep queued ahead of it', async () => {
    const order: string[] = [];
    let hold: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (hold = resolve));
    // An open transaction holds the store's turn: what comes meanwhile waits in the worker's queues.
    const holding = db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      await held;
    });
    await new Promise((resolve) => setImmediate(resolve));
    const upkeep = inLane('upkeep', () => db.query('ANALYZE sources')).then(() => order.push('upkeep'));
    const heavy = inLane('heavy', () => db.query('SELECT count(*) FROM generate_series(1, 1000)')).then(() => order.push('heavy'));
    const cheap = db.query('SELECT 1').then(() => order.push('cheap'));
    // Each sent before the transaction lets go (postMessage keeps their order).
    hold();
    await Promise.all([holding, upkeep, heavy, cheap]);
    expect(order).toEqual(['cheap', 'heavy', 'upkeep']);
  });

  // Last: it ends the store the others used.
  it('says the store stopped, to what waited and to what comes after, when its thread dies', async () => {
    let hold: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (hold = resolve));
    const holding = db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      await held;
    });
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = db.query('SELECT 1');
    await worker?.terminate();
    const stopped = { name: 'StoreUnavailableError', message: expect.stringMatching(/^The console's embedded store stopped: its thread exited/) as string };
    await expect(waiting).rejects.toMatchObject(stopped);
    await expect(db.query('SELECT 1')).rejects.toMatchObject(stopped);
    hold();
    await expect(holding).rejects.toMatchObject(stopped);
    await db.close();
  });
});

describe('a fresh folder and the build’s image', () => {
  it('starts a folder PGlite has not made yet as the image, and opens one it has made as it is', async () => {
    // An image made as scripts/store-image.js makes one (dumpDataDir, gzipped), of a folder holding a mark.
    const dataDir = await pgliteDataDir();
    const maker = await PGlite.create(path.join(dataDir, STORE_DIR));
    await maker.exec('CREATE TABLE made_from_image (x int); INSERT INTO made_from_image VALUES (42)');
    const tar = await maker.dumpDataDir('gzip');
    await maker.close();
    const image = path.join(dataDir, 'image.tar.gz');
    await writeFile(image, Buffer.from(await tar.arrayBuffer()));

    const folder = path.join(dataDir, 'fresh');
    const fresh = await openPgliteDb(folder, { image });
    expect((await fresh.query('SELECT x FROM made_from_image')).rows).toEqual([{ x: 42 }]);
    await fresh.query('INSERT INTO made_from_image VALUES (7)');
    await fresh.close();
    // Opened again, the folder is what it became, not the image once more.
    const again = await openPgliteDb(folder, { image });
    expect((await again.query('SELECT x FROM made_from_image ORDER BY x')).rows).toEqual([{ x: 7 }, { x: 42 }]);
    await again.close();
  }, 60_000);
});
