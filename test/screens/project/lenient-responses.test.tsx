import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// The console requires only the fields it reads: a response that leaves out the others, or carries
// fields it does not know, still shows.

const sim = setupSimServer({ start: Date.now() });

describe('responses with fewer (or more) fields than the platform usually sends', () => {
  it('shows branches and computes whose computes lack the autoscaling and other unread fields', async () => {
    const project = sim.cp.addProject({ name: 'Sparse', ownerId: sim.seed.userId, compute: false });
    sim.server.use(
      http.get(`*/api/v2/projects/${project.id}/branches`, () =>
        HttpResponse.json({
          branches: [{ id: 'br-main-1', name: 'main', current_state: 'ready', default: true, created_at: '2026-11-01T10:00:00Z', brand_new_field: 1 }],
        }),
      ),
      http.get(`*/api/v2/projects/${project.id}/endpoints`, () =>
        HttpResponse.json({
          endpoints: [
            // No autoscaling limits, suspend timeout, host, region or timestamps: the console shows none of them.
            { id: 'ep-sparse-1', name: 'primary', branch_id: 'br-main-1', type: 'read_write', current_state: 'idle', tomorrow: { a: 1 } },
          ],
        }),
      ),
    );
    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });

    const table = await screen.findByRole('table', { name: 'Branches and computes' });
    const row = within(table).getByRole('rowheader', { name: /^main/ }).closest('tr');
    expect(row).not.toBeNull();
    expect(within(row!).getByText('primary')).toBeInTheDocument();
    expect(within(row!).getByRole('cell', { name: 'Idle' })).toBeInTheDocument();
    expect(within(row!).getByRole('button', { name: 'Start compute primary' })).toBeEnabled();
    expect(screen.queryByText(/could not read/)).not.toBeInTheDocument();
  });
});
