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
    expect(curl).toBe(`curl --silent --show-error --fail-with-body -H "Authorization: Bearer $NEON_API_KEY" -H 'Accept: application/json' ${url}`);
    await waitFor(() => expect(screen.getByText('Copied.')).toBeInTheDocument());

    await user.click(screen.getByRole('button', { name: 'Copy as neonctl' }));
    const neonctl = await navigator.clipboard.readText();
    expect(neonctl).toBe(`npx neonctl api /projects/${project.id}/operations/${op!.id} --api-host ${window.location.origin}/api/v2 --api-key "$NEON_API_KEY"`);
    for (const text of [curl, neonctl]) expect(text).not.toContain(sim.apiKey);
  });

  it('copies the current list as a loop over every page, its filters as a jq program, since the API filters nothing', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 3);
    const { user } = renderApp(`/projects/${project.id}?status=failed,error&action=apply_config&q=it's`, { apiKey: sim.apiKey });
    await screen.findByRole('button', { name: /^Status\b/ });
    const program = `.operations[] | select((.status | IN("failed", "error")) and (.action | IN("apply_config")) and any((.id, .action) | gsub("_"; " ") | ascii_downcase; contains("it'\\''s")))`;

    await user.click(screen.getByRole('button', { name: 'Copy as curl' }));
    const curl = await navigator.clipboard.readText();
    expect(curl).toContain(`  url='${window.location.origin}/api/v2/projects/${project.id}/operations?limit=1000'\n`);
    expect(curl).toContain(
      `page=$(curl --silent --show-error --fail-with-body -H "Authorization: Bearer $NEON_API_KEY" -H 'Accept: application/json' "$next")`,
    );
    expect(curl).toContain(`    printf '%s\\n' "$page" | jq -c '${program}'\n`);
    expect(curl).toContain('if (.operations | length) == 1000 then $url + "&cursor=" + (.pagination.cursor // empty | @uri) else empty end');
    expect(curl).not.toContain(sim.apiKey);

    // neonctl cannot follow the cursor: its command reads one page, and the page says so beside it.
    await user.click(screen.getByRole('button', { name: 'Copy as neonctl' }));
    const neonctl = await navigator.clipboard.readText();
    expect(neonctl).toBe(
      `npx neonctl api /projects/${project.id}/operations -Q limit=1000 --api-host ${window.location.origin}/api/v2 --api-key "$NEON_API_KEY" | jq -c '${program}'`,
    );
    expect(screen.getByText(/^neonctl reads the newest 1,000 operations only/)).toBeInTheDocument();
  });
});
