// The store's migrations: numbered SQL files in ./migrations (001–049 the archive's, 050+ the
// notifications'), only ever added, each applied once and recorded in `schema_migrations`. They run in
// one transaction under an advisory lock, so two instances starting together apply them once.
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
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]?.version === migrations[i - 1]?.version) throw new Error(`Two migrations are numbered ${migrations[i]?.version}.`);
  }
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

/** Applies the migrations not yet recorded; returns the versions it applied. */
export async function migrate(db: Db, migrations: readonly Migration[]): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((row) => row.version));
    const applied: number[] = [];
    for (const [name, value] of Object.entries(MIGRATION_SETTINGS)) await tx.query('SELECT set_config($1, $2, true)', [name, value]);
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      // Each file may hold several statements: sent as one simple query (no parameters), which both drivers run whole.
      await tx.query(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      applied.push(migration.version);
    }
    return applied;
  });
}

/** The newest migration recorded in the store (0: none), read by readiness to see the store is migrated and answers. */
export async function appliedVersion(db: Pick<Db, 'query'>): Promise<number> {
  const { rows } = await db.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  return rows[0]?.version ?? 0;
}
