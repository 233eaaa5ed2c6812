import { screen, within } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// A file of its own: the console's modules load fresh in each file (test/support/setup-dom.ts), so here the
// timeline's code has not been loaded by an earlier test.
const sim = setupSimServer({ start: Date.now() });
const MINUTE = 60_000;

let observer: MutationObserver | undefined;
afterEach(() => observer?.disconnect());

it('a project opened from the list shows its timeline in the same moment as its rows: nothing comes in above them afterwards', async () => {
  const project = sim.cp.addProject({ name: 'Timeline and table', ownerId: sim.seed.userId, compute: false });
  for (let i = 0; i < 30; i++) {
    sim.cp.addOperation({ projectId: project.id, action: 'check_availability', status: 'finished', createdAt: sim.clock.now() - (60 - i) * MINUTE });
  }
  // Every change to the page, from its first render on: was there ever a row of operations with no timeline above it?
  const seen = { rowsAlone: 0, rowsWithTimeline: 0 };
  observer = new MutationObserver(() => {
    const rows = document.querySelector('main table[aria-rowcount] tbody a[href*="/operations/"]');
    if (!rows) return;
    if (document.querySelector('main figure')) seen.rowsWithTimeline++;
    else seen.rowsAlone++;
  });
  observer.observe(document.body, { childList: true, subtree: true });

  const { user } = renderApp('/', { apiKey: sim.apiKey });
  await user.click(await screen.findByRole('link', { name: 'Timeline and table' }));
  const table = await screen.findByRole('table', { name: /operations/i });
  await within(table).findAllByRole('link', { name: 'Check availability' });
  await screen.findByRole('figure');

  expect(seen.rowsWithTimeline).toBeGreaterThan(0);
  expect(seen.rowsAlone).toBe(0);
});
