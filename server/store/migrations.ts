// The store's migrations: numbered SQL files in ./migrations, one gapless sequence (001, 002, …), only ever
// added, each applied once and recorded in `schema_migrations`. They run in one transaction under an advisory
// lock, so two instances starting together apply them once. Start-up and readiness compare the whole set a store
// recorded with the set shipped (docs/operations.md, "Migrations"), never only the newest.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { QUEUE_STATUSES } from '../../src/model/insight-figures';
import type { Db } from './db';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The advisory lock key the migrations run under (any constant; the collector's is another). */
export const MIGRATION_LOCK = 4_022_001;

const FILE_NAME = /^(\d{3})_[a-z0-9_]+\.sql$/;

function fromFiles(files: Record<string, string>): Migration[] {
  const migrations: Migration[] = [];
  for (const [file, sql] of Object.entries(files)) {
    const name = file.split('/').pop() ?? file;
    const match = FILE_NAME.exec(name);
    if (!match?.[1]) throw new Error(`Migration file ${name} is not named NNN_words.sql.`);
    migrations.push({ version: Number(match[1]), name, sql });
  }
  migrations.sort((a, b) => a.version - b.version);
  // One sequence with no gap: a number skipped or kept for later is how a store came to miss one unnoticed.
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1)
      throw new Error(`Migration ${migration.name} is numbered ${migration.version}; the next in the sequence is ${String(index + 1).padStart(3, '0')}.`);
  });
  return migrations;
}

/**
 * Vite (the build, Vitest) bundles the files' text; tsx (`npm run dev`, the bench) has no import.meta.env
 * nor glob, and reads them from the folder beside this file.
 */
const bundled: Record<string, string> | undefined = (import.meta.env as ImportMetaEnv | undefined)
  ? import.meta.glob<string>('./migrations/*.sql', { query: '?raw', import: 'default', eager: true })
  : undefined;

export async function loadMigrations(): Promise<Migration[]> {
  if (bundled) return fromFiles(bundled);
  const dir = fileURLToPath(new URL('./migrations/', import.meta.url));
  const names = (await readdir(dir)).filter((name) => name.endsWith('.sql'));
  const files: Record<string, string> = {};
  for (const name of names) files[name] = await readFile(`${dir}${name}`, 'utf8');
  return fromFiles(files);
}

/**
 * What a migration's SQL may read of the console's own rules, by `current_setting(name)`, set for the migrations'
 * transaction: a file takes no parameters, and no status is written into SQL by hand (008 fills the queue's sightings).
 */
const MIGRATION_SETTINGS: Readonly<Record<string, string>> = {
  'ops_console.queue_waiting': QUEUE_STATUSES.waiting,
  'ops_console.queue_running': QUEUE_STATUSES.running,
};

/**
 * Numbers a file once had: the notifications' two were 050 and 051 (a range once kept for them). A store that
 * recorded them has its records renamed to their place in the one sequence, once, with nothing applied again.
 */
export const RENUMBERED: readonly { from: number; to: number; name: string }[] = [
  { from: 50, to: 9, name: '009_notifications.sql' },
  { from: 51, to: 10, name: '010_notify_claims_and_schedule.sql' },
];

/** A migration that could not be applied: the store does not open, and readiness and the log say which and why. */
export class MigrationFailedError extends Error {
  constructor(
    readonly migration: string,
    /** Every migration shipped that the store had not recorded when this one failed. */
    readonly missing: readonly string[],
    cause: unknown,
  ) {
    super(`Migration ${migration} could not be applied: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'MigrationFailedError';
  }
}

/** The store's record against what this code ships: migrations not recorded, and versions recorded that it does not know. */
export interface MigrationState {
  missing: string[];
  unknown: number[];
}

export function compareMigrations(recorded: Iterable<number>, shipped: readonly Migration[]): MigrationState {
  const have = new Set(recorded);
  const known = new Set(shipped.map((migration) => migration.version));
  return {
    missing: shipped.filter((migration) => !have.has(migration.version)).map((migration) => migration.name),
    unknown: [...have].filter((version) => !known.has(version)).sort((a, b) => a - b),
  };
}

/** Every version the store recorded (a migrated store: readiness asks an open one). */
export async function recordedVersions(db: Pick<Db, 'query'>): Promise<number[]> {
  const { rows } = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  return rows.map((row) => row.version);
}

/** Applies the migrations not yet recorded; returns the versions it applied. */
export async function migrate(db: Db, migrations: readonly Migration[]): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    for (const { from, to, name } of RENUMBERED) {
      await tx.query(
        'UPDATE schema_migrations SET version = $2, name = $3 WHERE version = $1 AND NOT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $2)',
        [from, to, name],
      );
    }
    const { rows } = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((row) => row.version));
    const missing = compareMigrations(done, migrations).missing;
    const applied: number[] = [];
    for (const [name, value] of Object.entries(MIGRATION_SETTINGS)) await tx.query('SELECT set_config($1, $2, true)', [name, value]);
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      try {
        // Each file may hold several statements: sent as one simple query (no parameters), which both drivers run whole.
        await tx.query(migration.sql);
      } catch (error) {
        throw new MigrationFailedError(migration.name, missing, error);
      }
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      applied.push(migration.version);
    }
    return applied;
  });
}
