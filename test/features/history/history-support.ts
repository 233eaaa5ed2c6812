import { vi } from 'vitest';
import { screen } from '@testing-library/react';
import type { SimServer } from '../../support/sim-server';
import type { EmptySeed } from '../../../sim/seed';

/** What these helpers need of the simulator: any seed has a user. */
type Sim = Pick<SimServer<EmptySeed>, 'cp' | 'clock' | 'seed'>;

export const MINUTE = 60_000;

/** A project with no compute, so the control plane adds no background operations of its own. */
export function newProject(sim: Sim, name = 'History test') {
  return sim.cp.addProject({ name, ownerId: sim.seed.userId, compute: false });
}

/**
 * `count` frozen operations, one a minute, oldest first, ending an hour ago; `shape(i)` picks each
 * one's status and action (the i-th oldest). Returns them newest first, as the API lists them.
 */
export function addHistory(
  sim: Sim,
  projectId: string,
  count: number,
  shape: (i: number) => { status?: 'finished' | 'failed' | 'error' | 'cancelled'; action?: string; durationMs?: number } = () => ({}),
) {
  const start = sim.clock.now() - 60 * MINUTE - count * MINUTE;
  for (let i = 0; i < count; i++) {
    const { status = 'finished', action = 'check_availability', durationMs = 2_000 } = shape(i);
    sim.cp.addOperation({ projectId, action, status, durationMs, createdAt: start + i * MINUTE });
  }
  return sim.cp.operationsOf(projectId);
}

export function operationsTable() {
  return screen.getByRole('table', { name: /operations/i });
}

/**
 * The operation ids the table links to, top to bottom (short tables render every row). Plain selectors, not role
 * queries: a `waitFor` runs this on every change to the page, and role queries over 200 rows take a busy jsdom
 * seconds each, time the page under test does not get.
 */
export function tableIds(): string[] {
  const table = [...document.querySelectorAll('table')].find((t) => /operations/i.test(t.caption?.textContent ?? ''));
  if (!table) throw new Error('no operations table yet');
  return [...table.querySelectorAll('tbody tr:not([aria-hidden="true"])')].map((row) =>
    decodeURIComponent(row.querySelector('a')?.getAttribute('href')?.split('/operations/')[1] ?? ''),
  );
}

/** Requests to a project's operations list, with when they went out. */
export interface ListRequest {
  url: URL;
  at: number;
}

/** Records each API list request when the page sends it (not when the stand-in API gets to it, which a busy machine delays unevenly); the archive's are not the API's. */
export function recordListRequests(): ListRequest[] {
  const requests: ListRequest[] = [];
  const send = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), window.location.href);
    if (/^\/api\/v2\/projects\/[^/]+\/operations$/.test(url.pathname)) requests.push({ url, at: Date.now() });
    return send(input, init);
  });
  return requests;
}

/** The most requests in any one-second window. */
export function mostInAnySecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let from = 0;
  for (let to = 0; to < sorted.length; to++) {
    while ((sorted[to] ?? 0) - (sorted[from] ?? 0) >= 1_000) from++;
    best = Math.max(best, to - from + 1);
  }
  return best;
}
