import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

const sim = setupSimServer({ start: Date.now() });

function rowOf(name: string): HTMLElement {
  return screen.getByRole('link', { name }).closest('tr')!;
}

describe('projects', () => {
  it('lists the key’s projects with name (a link), id, region, Postgres version, compute used and created', async () => {
    const project = sim.cp.addProject({
      name: 'Zeta analytics',
      ownerId: sim.seed.userId,
      regionId: 'aws-eu-central-1',
      pgVersion: 17,
      cpuUsedSec: 5_400,
    });
    renderApp('/', { apiKey: sim.apiKey });
    const link = await screen.findByRole('link', { name: 'Zeta analytics' });
    expect(link).toHaveAttribute('href', `/projects/${project.id}`);
    const cells = within(rowOf('Zeta analytics'))
      .getAllByRole('cell')
      .map((c) => c.textContent);
    // The first cell is the archive's Operations, there from the first paint (no kept key here).
    expect(cells.slice(1, 5)).toEqual([project.id, 'aws-eu-central-1', '17', '1 h 30 min']);
    await waitFor(() => expect(within(rowOf('Zeta analytics')).getAllByRole('cell')[0]).toHaveTextContent('Not in the archive'));
  });

  it('switches between personal projects and an organization’s', async () => {
    const org = sim.cp.addOrganization('Skunkworks', { admins: [sim.seed.userId] });
    sim.cp.addProject({ name: 'Org-only project', orgId: org.id });
    sim.cp.addProject({ name: 'Personal sandbox', ownerId: sim.seed.userId });

    const { user } = renderApp('/', { apiKey: sim.apiKey });
    await screen.findByRole('link', { name: 'Personal sandbox' });
    expect(screen.queryByRole('link', { name: 'Org-only project' })).not.toBeInTheDocument();

    await user.selectOptions(await screen.findByRole('combobox', { name: 'Organization' }), 'Skunkworks');
    expect(await screen.findByRole('link', { name: 'Org-only project' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Personal sandbox' })).not.toBeInTheDocument();
    expect(window.location.search).toBe(`?org=${org.id}`);
  });

  it('says so when an organization has no projects', async () => {
    const org = sim.cp.addOrganization('Empty Org', { admins: [sim.seed.userId] });
    renderApp(`/?org=${org.id}`, { apiKey: sim.apiKey });
    expect(await screen.findByText('This organization has no projects yet.')).toBeInTheDocument();
  });

  it('searches loaded projects by name or id', async () => {
    const wanted = sim.cp.addProject({ name: 'Needle service', ownerId: sim.seed.userId });
    sim.cp.addProject({ name: 'Haystack one', ownerId: sim.seed.userId });
    const { user } = renderApp('/', { apiKey: sim.apiKey });
    await screen.findByRole('link', { name: 'Needle service' });

    const search = screen.getByRole('searchbox', { name: 'Search projects' });
    await user.type(search, 'needle');
    expect(screen.getAllByRole('row')).toHaveLength(2);
    expect(screen.getByRole('link', { name: 'Needle service' })).toBeInTheDocument();

    await user.clear(search);
    await user.type(search, wanted.id.slice(0, 8));
    expect(screen.getByRole('link', { name: 'Needle service' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Haystack one' })).not.toBeInTheDocument();

    await user.clear(search);
    await user.type(search, 'no such project');
    expect(screen.getByText(/No loaded project matches/)).toBeInTheDocument();
  });

  it('pages through hundreds of projects with the cursor', async () => {
    for (let i = 0; i < 130; i++) sim.cp.addProject({ name: `bulk-${String(i).padStart(3, '0')}`, ownerId: sim.seed.userId, compute: false });
    const { user } = renderApp('/', { apiKey: sim.apiKey });
    await screen.findAllByRole('link', { name: /bulk-/ });
    const firstPage = screen.getAllByRole('link', { name: /bulk-/ }).length;
    expect(firstPage).toBeLessThan(130);

    await user.click(screen.getByRole('button', { name: 'Load more projects' }));
    await waitFor(() => expect(screen.getAllByRole('link', { name: /bulk-/ })).toHaveLength(130));
    expect(screen.queryByRole('button', { name: 'Load more projects' })).not.toBeInTheDocument();
  });

  it('shows a failed load with Retry', async () => {
    sim.server.use(http.get('*/api/v2/projects', () => HttpResponse.json({ code: '', message: 'database is down' }, { status: 500 }), { once: true }));
    const { user } = renderApp('/', { apiKey: sim.apiKey });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('database is down');
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect((await screen.findAllByRole('row')).length).toBeGreaterThan(1);
  });
});
