import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../support/render-app';
import { setupSimServer } from '../support/sim-server';
import { RETRY_SAID } from '../support/retry-said';

const sim = setupSimServer({ start: Date.now() });

function projectWithHistory() {
  const project = sim.cp.addProject({ name: 'Flaky start', ownerId: sim.seed.userId, compute: false });
  sim.cp.addOperation({ projectId: project.id, action: 'check_availability', status: 'finished', createdAt: sim.clock.now() - 60_000 });
  return project;
}

/** The operations list answers 503 until `heal()` is called. */
function busyUntilHealed(projectId: string) {
  let busy = true;
  sim.server.use(
    http.get(`*/api/v2/projects/${projectId}/operations`, () =>
      busy ? HttpResponse.json({ code: '', message: 'service unavailable' }, { status: 503 }) : undefined,
    ),
  );
  return () => (busy = false);
}

describe('a first load the console retries by itself (503)', () => {
  it('shows the failure inline with when it tries again and a Retry that works now', async () => {
    const project = projectWithHistory();
    const heal = busyUntilHealed(project.id);
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load the operations.');
    expect(alert).toHaveTextContent(RETRY_SAID);
    heal();
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));

    const table = await screen.findByRole('table', { name: /operations/i });
    expect(within(table).getByRole('link', { name: 'Check availability' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('says so once, inline where the table will be, not again in the page-wide notices, counting down to the next try', async () => {
    const project = projectWithHistory();
    busyUntilHealed(project.id);
    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(RETRY_SAID);
    expect(document.querySelector('.notices')).toBeEmptyDOMElement();
    // The tries back off (1 s, 2 s, 4 s…) and the callout counts down to the next one.
    // Read from whichever try is showing: on two busy cores the first render can come after the first tries.
    const secondsLeft = () => Number(/Retrying in (\d+) s\./.exec(alert.textContent)?.[1]);
    // A try 4 s or more away: busy cores may paint a second late, but not three in a row.
    await waitFor(() => expect(secondsLeft()).toBeGreaterThan(2));
    const before = secondsLeft();
    await waitFor(() => {
      expect(secondsLeft()).toBeLessThan(before);
      expect(secondsLeft()).toBeGreaterThanOrEqual(1);
    });
    expect(document.querySelector('.notices')).toBeEmptyDOMElement();
  });

  it('recovers by itself once the API answers, without a click', async () => {
    const project = projectWithHistory();
    const heal = busyUntilHealed(project.id);
    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });

    expect(await screen.findByRole('alert')).toHaveTextContent(RETRY_SAID);
    heal();
    const table = await screen.findByRole('table', { name: /operations/i });
    expect(within(table).getByRole('link', { name: 'Check availability' })).toBeInTheDocument();
  });
});
