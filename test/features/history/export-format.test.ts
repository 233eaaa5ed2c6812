import { describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/api/schemas';
import {
  CSV_COLUMNS,
  exportFileName,
  operationsToCsv,
  operationsToJson,
  type ExportedOperation,
  type OperationsExport,
} from '../../../src/features/history/export/export-format';

const EXPORTED_AT = new Date('2026-11-22T12:00:05.123Z');

function operation(id: string, fields: Partial<Operation> = {}): Operation {
  return {
    id,
    project_id: 'p-1',
    action: 'create_branch',
    status: 'finished',
    failures_count: 0,
    created_at: '2026-11-22T11:00:00Z',
    updated_at: '2026-11-22T11:00:02Z',
    total_duration_ms: 2_000,
    ...fields,
  };
}

function input(operations: Operation[]): OperationsExport {
  return {
    projectId: 'p-1',
    projectName: 'Shop, "prod"',
    operations,
    branchNames: new Map([['br-1', 'main']]),
    computeNames: new Map([['ep-1', 'primary']]),
    exportedAt: EXPORTED_AT,
  };
}

/** A minimal RFC 4180 reader, so the tests check what a spreadsheet would see, not our own string building. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  return rows.map((cells) => Object.fromEntries(header!.map((name, i) => [name, cells[i] ?? ''])));
}

describe('CSV export', () => {
  it('writes a header and one row per operation with the raw status and the label the console shows', () => {
    const csv = operationsToCsv(
      input([
        operation('op-3', { status: 'running', action: 'start_compute', branch_id: 'br-1', endpoint_id: 'ep-1', total_duration_ms: 0 }),
        operation('op-2', { status: 'failed', failures_count: 2, retry_at: '2026-11-22T12:01:00Z', error: 'disk full' }),
        operation('op-1', { status: 'paused_by_operator', action: 'reticulate_splines' }),
      ]),
    );

    const [header] = parseCsv(csv);
    expect(header).toEqual([...CSV_COLUMNS]);
    const records = csvRecords(csv);
    expect(records.map((r) => [r.id, r.status, r.status_label, r.action_label])).toEqual([
      ['op-3', 'running', 'In progress', 'Start compute'],
      ['op-2', 'failed', 'Error', 'Create branch'],
      ['op-1', 'paused_by_operator', 'paused_by_operator', 'Reticulate splines'],
    ]);
    expect(records[0]).toMatchObject({ branch_id: 'br-1', branch_name: 'main', endpoint_id: 'ep-1', compute_name: 'primary', total_duration_ms: '0' });
    expect(records[1]).toMatchObject({ failures_count: '2', retry_at: '2026-11-22T12:01:00Z', error: 'disk full', branch_id: '', compute_name: '' });
  });

  it('quotes commas, quotes and line breaks so each value stays in its own cell', () => {
    const error = 'could not resize, "storage" busy\r\nsee logs\nline three';
    const csv = operationsToCsv(input([operation('op-1', { status: 'error', error, branch_id: 'br-gone' })]));

    const [record] = csvRecords(csv);
    expect(record!.error).toBe(error);
    expect(record!.branch_id).toBe('br-gone');
    expect(record!.branch_name).toBe('');
    expect(csv.endsWith('\r\n')).toBe(true);
  });

  it('defuses text a spreadsheet would run as a formula', () => {
    const csv = operationsToCsv(
      input([operation('op-1', { status: 'error', error: '=HYPERLINK("http://evil.example","x")' }), operation('op-2', { error: '@SUM(A1)' })]),
    );

    const records = csvRecords(csv);
    expect(records[0]!.error).toBe(`'=HYPERLINK("http://evil.example","x")`);
    expect(records[1]!.error).toBe(`'@SUM(A1)`);
  });

  it('writes every loaded operation once, even when the live poll and a page both hold it', () => {
    const fresh = operation('op-2', { status: 'finished' });
    const stale = operation('op-2', { status: 'running' });
    const csv = operationsToCsv(input([operation('op-3'), fresh, operation('op-1'), stale]));

    const records = csvRecords(csv);
    expect(records.map((r) => r.id)).toEqual(['op-3', 'op-2', 'op-1']);
    expect(records[1]!.status).toBe('finished');
  });

  it('is just the header when nothing is loaded', () => {
    expect(parseCsv(operationsToCsv(input([])))).toEqual([[...CSV_COLUMNS]]);
  });
});

describe('JSON export', () => {
  it('names the project and the export time and lists each operation once with raw values and labels', () => {
    const json = JSON.parse(operationsToJson(input([operation('op-2', { status: 'cancelling' }), operation('op-1'), operation('op-2')]))) as {
      project: { id: string; name: string };
      exported_at: string;
      operations: ExportedOperation[];
    };

    expect(json.project).toEqual({ id: 'p-1', name: 'Shop, "prod"' });
    expect(json.exported_at).toBe('2026-11-22T12:00:05.123Z');
    expect(json.operations.map((op) => [op.id, op.status, op.status_label])).toEqual([
      ['op-2', 'cancelling', 'In progress (cancelling)'],
      ['op-1', 'finished', 'OK'],
    ]);
    expect(json.operations[1]).toEqual({
      id: 'op-1',
      action: 'create_branch',
      action_label: 'Create branch',
      status: 'finished',
      status_label: 'OK',
      branch_id: null,
      branch_name: null,
      endpoint_id: null,
      compute_name: null,
      created_at: '2026-11-22T11:00:00Z',
      updated_at: '2026-11-22T11:00:02Z',
      total_duration_ms: 2_000,
      failures_count: 0,
      retry_at: null,
      error: null,
    });
  });
});

describe('export file names', () => {
  it('carry the project and a sortable UTC time, with nothing a file system rejects', () => {
    expect(exportFileName('p-1', EXPORTED_AT, 'csv')).toBe('operations-p-1-20261122T120005Z.csv');
    expect(exportFileName('../we/ird:id', EXPORTED_AT, 'json')).toBe('operations--we-ird-id-20261122T120005Z.json');
  });
});
