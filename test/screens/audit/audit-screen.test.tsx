import { configure, screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditPage, AuditRow } from '../../../src/model/audit';
import { holdSession } from '../../support/console-server';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// The audit trail's screen (docs/team.md, "The audit trail"): its filters come from the address and go back to it,
// "Show older" pages over the whole trail, and the exports carry the same filters. The console's /audit route is
// answered here (its server side has tests of its own in test/server/auth).
const sim = setupSimServer({ start: Date.now() });

beforeAll(() => configure({ asyncUtilTimeout: 5_000 }));

const row = (id: string, name: string, action: string, status: number): AuditRow => ({
  id,
  at: '2026-12-02T10:00:00.000Z',
  email: `${name.split(' ')[0]!.toLowerCase()}@example.com`,
  name,
  role: 'viewer',
  action,
  projectId: 'p-1',
  target: 'compute ep-1 of project p-1',
  status,
  requestId: null,
  operationIds: [],
});

/** The trail's queries the page sent, each as its search parameters. */
let asked: URLSearchParams[] = [];

beforeEach(() => {
  asked = [];
  sim.server.use(
    http.get('*/audit', ({ request }) => {
      const search = new URL(request.url).searchParams;
      asked.push(search);
      const page: AuditPage =
        search.get('after') === 'older'
          ? { rows: [row('a3', 'Vera Viewer', 'Refused: Delete branch', 403)], next: null }
          : {
              rows: [row('a1', 'Vera Viewer', 'Refused: Restart compute', 403), row('a2', 'Vera Viewer', 'Refused: Create branch', 403)],
              next: 'older',
            };
      return HttpResponse.json(page);
    }),
  );
});

function openAudit(path: string) {
  const session = { ...holdSession(sim.apiKey), person: { email: 'ada@example.com', name: 'Ada Admin', role: 'admin' as const }, team: 'oidc' as const };
  return renderApp(path, { session });
}

describe('the audit trail screen', () => {
  it('reads its filters from the address, asks for them, and its exports carry them', async () => {
    openAudit('/settings/audit?person=vera&from=2026-12-01&nonsense=1');
    const table = await screen.findByRole('table', { name: /Audit trail/ });
    expect(await within(table).findByRole('row', { name: /Vera Viewer.*Refused: Restart compute.*Refused \(403\)/ })).toBeInTheDocument();
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['When', 'Person', 'Action', 'Target', 'Result']);
    expect(screen.getByLabelText('Person')).toHaveValue('vera');
    expect(screen.getByLabelText('From')).toHaveValue('2026-12-01');
    expect(screen.getByLabelText('Action')).toHaveValue('');
    expect(Object.fromEntries(asked[0]!)).toEqual({ person: 'vera', from: '2026-12-01' });
    expect(screen.getByRole('link', { name: 'CSV' })).toHaveAttribute('href', '/audit/export.csv?person=vera&from=2026-12-01');
    expect(screen.getByRole('link', { name: 'NDJSON' })).toHaveAttribute('href', '/audit/export.ndjson?person=vera&from=2026-12-01');
  });

  it('puts the filters typed in the address, asks again, and pages to the trail’s end with Show older', async () => {
    const { user } = openAudit('/settings/audit');
    const table = await screen.findByRole('table', { name: /Audit trail/ });
    await within(table).findByRole('row', { name: /Refused: Create branch/ });
    expect(Object.fromEntries(asked[0]!)).toEqual({});

    await user.type(screen.getByLabelText('Action'), 'Restart compute');
    await user.type(screen.getByLabelText('Project'), '  p-1 ');
    await user.click(screen.getByRole('button', { name: 'Filter' }));
    await expect.poll(() => new URLSearchParams(window.location.search).toString()).toBe('action=Restart+compute&project=p-1');
    await expect.poll(() => asked.map((search) => search.toString())).toContain('action=Restart+compute&project=p-1');
    expect(screen.getByRole('link', { name: 'CSV' })).toHaveAttribute('href', '/audit/export.csv?action=Restart+compute&project=p-1');

    await user.click(await screen.findByRole('button', { name: 'Show older' }));
    expect(await within(table).findByRole('row', { name: /Refused: Delete branch/ })).toBeInTheDocument();
    expect(asked.at(-1)!.toString()).toBe('action=Restart+compute&project=p-1&after=older');
    // The whole trail is read: the first page's rows stay, and nothing older is offered.
    expect(within(table).getAllByRole('row')).toHaveLength(4);
    expect(screen.queryByRole('button', { name: 'Show older' })).toBeNull();
  });
});
