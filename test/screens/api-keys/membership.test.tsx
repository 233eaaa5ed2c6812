import { configure, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { polyfillModalDialogs } from '../../support/modal-dialogs';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// The API keys page learns the user's role in each organization from its member list (what the API
// offers for it), instead of probing the organization's key list and meeting a 403 on every visit.

const sim = setupSimServer();
let sent: { method: string; path: string; status?: number }[] = [];

beforeAll(() => {
  configure({ asyncUtilTimeout: 5_000 });
  polyfillModalDialogs();
});
beforeEach(() => {
  sent = [];
  sim.server.events.on('response:mocked', ({ request, response }) => {
    sent.push({ method: request.method, path: new URL(request.url).pathname, status: response.status });
  });
});
afterEach(() => sim.server.events.removeAllListeners());

describe('organization rights on the API keys page', () => {
  it('reads each membership, lists only the keys of organizations the user administers, and meets no 403', async () => {
    renderApp('/settings/api-keys', { apiKey: sim.apiKey });
    const northwind = await screen.findByRole('region', { name: 'Northwind Labs keys' });
    expect(await within(northwind).findByText(/You are a member of Northwind Labs, not an administrator/)).toBeInTheDocument();
    const acme = await screen.findByRole('region', { name: 'Acme Analytics keys' });
    expect(await within(acme).findByText('No keys for Acme Analytics yet.')).toBeInTheDocument();
    expect(sent.filter((r) => r.path === `/api/v2/organizations/${sim.seed.orgIds.acme}/api_keys`)).toHaveLength(1);

    expect(sent.filter((r) => r.path === `/api/v2/organizations/${sim.seed.orgIds.northwind}/members`)).toHaveLength(1);
    expect(sent.filter((r) => r.path === `/api/v2/organizations/${sim.seed.orgIds.northwind}/api_keys`)).toEqual([]);
    expect(sent.filter((r) => (r.status ?? 0) >= 400)).toEqual([]);
  });
});
