import { execFileSync } from 'node:child_process';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jqProgram } from '../../../src/features/history/commands/list-commands';
import { exportedRow, ndjsonLine } from '../../../src/features/history/export/export-format';
import { filterOperations, filtersFromSearch, jqCondition, searchWithFilters, sqlCondition } from '../../../src/model/filters';
import type { Operation } from '../../../src/api/schemas';
import { CASE_OPERATIONS, FILTER_CASES } from './filter-cases';

// Each filter field is described once (src/model/filter-fields.ts) and every
// form of it is derived. The same cases go through each form and must find the same operations: the
// in-browser test; jq (Debian's real binary) over the exported NDJSON and over the API's page with
// the copied command's program; SQL on PGlite (the archive's embedded store) with its parameters.

const operations: Operation[] = CASE_OPERATIONS.map((op) => ({
  ...op,
  project_id: 'p-1',
  updated_at: op.created_at,
  total_duration_ms: 1_000,
  failures_count: 0,
}));
const names = { branchNames: new Map([['br-main', 'main']]), computeNames: new Map<string, string>() };
const ndjson = operations.map((op) => ndjsonLine(exportedRow(op, names))).join('');
const apiPage = JSON.stringify({ operations, pagination: { cursor: operations.at(-1)?.created_at } });

const jq = (program: string, input: string) => execFileSync('jq', ['-r', program], { input, encoding: 'utf8' }).split('\n').filter(Boolean);

let db: PGlite;

beforeAll(async () => {
  db = new PGlite();
  await db.exec(`CREATE TABLE operations (
    id text PRIMARY KEY, action text NOT NULL, status text NOT NULL, branch_id text, endpoint_id text, created_at timestamptz NOT NULL
  )`);
  for (const op of operations) {
    await db.query('INSERT INTO operations VALUES ($1, $2, $3, $4, $5, $6)', [
      op.id,
      op.action,
      op.status,
      op.branch_id ?? null,
      op.endpoint_id ?? null,
      op.created_at,
    ]);
  }
}, 60_000);

afterAll(async () => {
  await db.close();
});

describe.each(FILTER_CASES)('the filters ?%s', (search) => {
  const filters = filtersFromSearch(new URLSearchParams(search));
  const expected = filterOperations(operations, filters).map((op) => op.id);

  it('read from the address and written back say the same', () => {
    expect(filtersFromSearch(searchWithFilters(new URLSearchParams(), filters))).toEqual(filters);
  });

  it('find the same operations with jq over the exported NDJSON', () => {
    const condition = jqCondition(filters);
    expect(jq(condition === undefined ? '.id' : `select(${condition}) | .id`, ndjson)).toEqual(expected);
  });

  it("find the same operations with the copied command's jq program over the API's page", () => {
    expect(jq(`${jqProgram(filters)} | .id`, apiPage)).toEqual(expected);
  });

  it('find the same operations in SQL, every value a parameter', async () => {
    const { where, params } = sqlCondition(filters);
    for (const value of params.flat()) expect(where).not.toContain(String(value));
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM operations WHERE ${where} ORDER BY created_at DESC`, params);
    expect(rows.map((row) => row.id)).toEqual(expected);
  });
});

describe('the cases', () => {
  it('reach every field: each case but the empty one narrows the list, and some find nothing', () => {
    const counts = FILTER_CASES.map((search) => filterOperations(operations, filtersFromSearch(new URLSearchParams(search))).length);
    expect(counts[0]).toBe(operations.length);
    expect(counts.slice(1).every((n) => n < operations.length)).toBe(true);
    expect(counts.filter((n) => n > 0).length).toBeGreaterThan(FILTER_CASES.length - 5);
  });

  it('find the text by the API value and by the shown name alike', () => {
    const ids = (search: string) => filterOperations(operations, filtersFromSearch(new URLSearchParams(search))).map((op) => op.id);
    expect(ids('q=apply config')).toEqual(['op-unknown-status', 'op-apply-failed', 'op-apply-ok']);
    expect(ids('q=Apply_Config')).toEqual(ids('q=apply config'));
    expect(ids('from=2026-11-22T11:00:07.500Z')).toEqual(['op-unknown-status', 'op-new-action', 'OP-UPPER-ID', 'op-apply-failed']);
  });
});
