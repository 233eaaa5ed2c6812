import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';
import { addHistory, newProject } from './history-support';

// "Copy as curl" and "Copy as neonctl": the same read as a terminal command, with $NEON_API_KEY where
// the key goes. The copied text never holds the key.

const sim = setupSimServer({ start: Date.now() });

describe('copying a read as a command', () => {
  it("copies an operation's read as curl and as neonctl, with $NEON_API_KEY and never the key", async () => {
    const project = newProject(sim);
    const [op] = addHistory(sim, project.id, 1);
    const { user } = renderApp(`/projects/${project.id}/operations/${op!.id}`, { apiKey: sim.apiKey });
    await screen.findByRole('heading', { level: 1, name: 'Check availability' });
    const url = `${window.location.origin}/api/v2/projects/${project.id}/operations/${op!.id}`;

    await user.click(screen.getByRole('button', { name: 'Copy as curl' }));
    const curl = await navigator.clipboard.readText();
    expect(curl).toBe(
      `curl --silent --show-error --fail-with-body -H "Authorization: Bearer $NEON_API_KEY" -H 'Accept: application/json' ${url}`,
    );
    await waitFor(() => expect(screen.getByText('Copied.')).toBeInTheDocument());

    await user.click(screen.getByRole('button', { name: 'Copy as neonctl' }));
    const neonctl = await navigator.clipboard.readText();
    expect(neonctl).toBe(
      `neonctl api /projects/${project.id}/operations/${op!.id} --api-host ${window.location.origin}/api/v2 --api-key "$NEON_API_KEY"`,
    );
    for (const text of [curl, neonctl]) expect(text).not.toContain(sim.apiKey);
  });

  it('copies the current list with its filters as a jq program, since the API filters nothing', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 3);
    const { user } = renderApp(`/projects/${project.id}?status=failed,error&action=apply_config&q=it's`, { apiKey: sim.apiKey });
    await screen.findByRole('listbox', { name: 'Status' });
    await user.click(screen.getByRole('button', { name: 'Copy as curl' }));
    const curl = await navigator.clipboard.readText();
    expect(curl).toContain(`'${window.location.origin}/api/v2/projects/${project.id}/operations?limit=1000'`);
    expect(curl).toContain(
      ` | jq '.operations[] | select(((.status == "failed" or .status == "error")) and (.action == "apply_config") and ((.id + " " + .action) | ascii_downcase | contains("it'\\''s")))'`,
    );
    expect(curl).not.toContain(sim.apiKey);
  });
});
