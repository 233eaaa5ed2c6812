import { screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../support/render-app';
import { setupSimServer } from '../support/sim-server';

// Times read in UTC or in local time, switched in one place (the header) and remembered.

const sim = setupSimServer({ start: Date.parse('2026-11-22T12:00:00Z') });
const zone = process.env.TZ;
beforeEach(() => {
  process.env.TZ = 'Europe/Berlin';
});
afterEach(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('the time zone switch', () => {
  it("switches an operation's times to local time, and remembers the choice", async () => {
    const project = sim.cp.addProject({ name: 'Zones', ownerId: sim.seed.userId, compute: false });
    const op = sim.cp.addOperation({ projectId: project.id, action: 'apply_config', status: 'finished', createdAt: Date.parse('2026-11-22T11:00:00Z') });
    const path = `/projects/${project.id}/operations/${op.id}`;
    const first = renderApp(path, { apiKey: sim.apiKey });
    await screen.findByRole('heading', { level: 1, name: 'Apply config' });
    // The time element of the Created field (its date and its time are spans of their own: date-time.tsx).
    const created = () => (screen.getByText('Created').nextElementSibling as HTMLElement).querySelector('time');
    expect(created()).toHaveTextContent(/^2026-11-22 11:00:00 UTC$/);

    await first.user.selectOptions(screen.getByRole('combobox', { name: 'Times in' }), 'local');
    expect(created()).toHaveTextContent(/^2026-11-22 12:00:00 UTC\+01:00$/);
    first.unmount();

    renderApp(path, { apiKey: sim.apiKey });
    await screen.findByRole('heading', { level: 1, name: 'Apply config' });
    expect(screen.getByRole('combobox', { name: 'Times in' })).toHaveValue('local');
    expect(created()).toHaveTextContent(/^2026-11-22 12:00:00/);
  });
});
