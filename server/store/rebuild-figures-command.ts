// `npm run store:rebuild-figures` (docs/operations.md, "Rebuilding the per-day figures"): the insights' per-day
// figures made again from the operations kept, in the store the server uses (DATABASE_URL's Postgres server, else
// PGlite in DATA_DIR/store, whose lock it takes: not while a server has that DATA_DIR open).
import path from 'node:path';
import { CONFIG_DEFAULTS } from '../config';
import { lockDataDir } from './data-dir-lock';
import { rebuildDayFigures } from './day-figures';
import { openStore } from './index';

const databaseUrl = process.env.DATABASE_URL || undefined;
const dataDir = path.resolve(process.env.DATA_DIR || CONFIG_DEFAULTS.dataDir);
const lock = databaseUrl === undefined ? await lockDataDir(dataDir) : undefined;
try {
  const db = await openStore(databaseUrl === undefined ? { dataDir } : { databaseUrl });
  try {
    const started = performance.now();
    const made = await rebuildDayFigures(db);
    const seconds = ((performance.now() - started) / 1_000).toFixed(1);
    console.log(`Per-day figures rebuilt from the operations in ${seconds} s: ${made.figures} rows of figures, ${made.queues} of queues.`);
  } finally {
    await db.close();
  }
} finally {
  lock?.release();
}
