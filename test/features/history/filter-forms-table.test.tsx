import { execFileSync } from 'node:child_process';
import { screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { filterOperations, filtersFromSearch, jqCondition } from '../../../src/model/filters';
import { catchDownloads, type Download } from '../../support/downloads';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';
import { tableIds } from './history-support';

// The same filter cases as filter-forms.test.ts, through what a person sees: the table shows exactly
// what the in-browser test finds, "Export all matches as NDJSON" writes exactly those, and the real
// `jq` with the filters' jq form, run over that file, keeps every line (the export and jq agree).

const sim = setupSimServer({ start: Date.now() });
const MINUTE = 60_000;

let downloads: Promise<Download>[] = [];
beforeEach(() => {
  localStorage.setItem('ops-console.poll-interval-ms', '100');
  downloads = catchDownloads();
});
afterEach(() => vi.restoreAllMocks());

/** A project with both kinds of action name and status on two branches, created a minute apart, 20 minutes ago and older. */
function variedProject() {
  const project = sim.cp.addProject({ name: 'Filter forms', ownerId: sim.seed.userId, compute: false });
  const dev = sim.cp.addBranch({ projectId: project.id, name: 'dev', compute: false });
  const shapes = [
    { status: 'finished', action: 'apply_config' },
    { status: 'failed', action: 'apply_config' },
    { status: 'error', action: 'start_compute' },
    { status: 'cancelled', action: 'create_branch' },
    { status: 'finished', action: 'rotate_certificates' },
    { status: 'skipped', action: 'apply_storage_config' },
  ] as const;
  const start = sim.clock.now() - 20 * MINUTE - shapes.length * MINUTE;
  shapes.forEach((shape, i) => {
    sim.cp.addOperation({ projectId: project.id, ...shape, branchId: i % 2 ? dev.id : project.defaultBranchId, createdAt: start + i * MINUTE });
  });
  return { project, dev, start };
}

type Project = ReturnType<typeof variedProject>;

const CASES: readonly [string, (p: Project) => string][] = [
  ['status', () => 'status=failed,error'],
  ['action', () => 'action=apply_config,rotate_certificates'],
  ['text by the shown name', () => 'q=apply config'],
  ['text by the API value, in capitals', () => 'q=APPLY_CONF'],
  ['branch', (p) => `branch=${p.dev.id}`],
  ['time range', (p) => `from=${new Date(p.start + 2 * MINUTE).toISOString()}&to=${new Date(p.start + 4 * MINUTE + 500).toISOString()}`],
  ['several fields', (p) => `status=finished&q=config&branch=${p.project.defaultBranchId}`],
];

describe('the filter forms in the table and the export', () => {
  it.each(CASES)('shows, exports and jq-filters the same operations: %s', async (_name, searchOf) => {
    // The simulator starts afresh for each test.
    const p = variedProject();
    const search = searchOf(p);
    const filters = filtersFromSearch(new URLSearchParams(search));
    const expected = filterOperations(sim.cp.operationsOf(p.project.id), filters).map((op) => op.id);
    expect(expected.length).toBeGreaterThan(0);
    const { user } = renderApp(`/projects/${p.project.id}?${search}`, { apiKey: sim.apiKey });
    await waitFor(() => expect(screen.getByText(/^Searched (the whole history|back to the start of the time range)/)).toBeInTheDocument());
    expect(tableIds()).toEqual(expected);

    await user.click(screen.getByRole('button', { name: 'Export all matches as NDJSON' }));
    await waitFor(() => expect(downloads).toHaveLength(1));
    const file = await downloads[0]!;
    const exported = file.text.split('\n').filter(Boolean);
    expect(exported.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(expected);
    const kept = execFileSync('jq', ['-r', `select(${jqCondition(filters) ?? 'true'}) | .id`], { input: file.text, encoding: 'utf8' });
    expect(kept.split('\n').filter(Boolean)).toEqual(expected);
  });
});
