import { expect, test } from '@playwright/test';
import { ControlApi, sendWhenNotBusy, type ApiOperation } from './support/api';
import { clearFaults, setFaults } from './support/faults';
import { operationPath, projectPath } from './support/screens';
import { E2E_API_KEY, holdKey } from './support/session';

// The timeline's marks of operations started at one moment: a restart of a running compute starts its suspend
// and its start together, on one lane. The fault control reports both as ended in Error at once, so their marks
// are the same diamond on the same spot, the worst case (one Error diamond over another mark). Each is drawn
// whole (a row of its own), so a person can point at it and open it, and the keyboard reaches it
// (docs/console.md#the-timeline).

test('every timeline mark of two operations started together can be clicked', async ({ page, context, request }) => {
  test.setTimeout(90_000);
  const api = new ControlApi(request, E2E_API_KEY);
  // A personal project with a compute, not the one the notifications spec changes.
  const projects = (await api.allProjects()).filter((p) => p.organization === null && p.locked !== true && p.name !== 'scratchpad');
  const withCompute = await Promise.all(
    projects.map(async (p) => ({
      project: p,
      endpoints: (await api.get<{ endpoints: { id: string }[] }>(`/projects/${encodeURIComponent(p.id)}/endpoints`)).endpoints,
    })),
  );
  const chosen = withCompute.find((c) => c.endpoints.length > 0);
  const endpoint = chosen?.endpoints[0];
  if (!chosen || !endpoint) throw new Error('the demo seed has no personal project with a compute');
  const projectId = chosen.project.id;
  const restart = `/api/v2/projects/${encodeURIComponent(projectId)}/endpoints/${encodeURIComponent(endpoint.id)}/restart`;

  // A restart of a suspended compute only starts it: restart again once it runs, until a restart starts two.
  let together: ApiOperation[] = [];
  await expect(async () => {
    const response = await sendWhenNotBusy(() => request.post(restart, { headers: { Authorization: `Bearer ${E2E_API_KEY}` } }));
    expect(response.status(), await response.text()).toBe(200);
    together = ((await response.json()) as { operations: ApiOperation[] }).operations;
    expect(together.map((op) => op.action).sort()).toEqual(['start_compute', 'suspend_compute']);
  }).toPass({ timeout: 60_000, intervals: [500, 1_000, 2_000] });
  expect(new Set(together.map((op) => op.created_at)).size, 'the two start at one moment').toBe(1);

  const ids = together.map((op) => op.id);
  await setFaults(request, [
    { method: 'GET', path: `/projects/${projectId}/operations`, fault: { type: 'unknown-values', status: 'error', ids } },
    { method: 'GET', path: `/projects/${projectId}/operations/**`, fault: { type: 'unknown-values', status: 'error', ids } },
  ]);
  try {
    await holdKey(context);
    await page.goto(projectPath(projectId));
    const figure = page.getByRole('figure', { name: /^Timeline/ });
    for (const op of together) {
      const mark = figure.getByRole('link', { name: /, Error, / }).and(figure.locator(`a[href="${operationPath(projectId, op.id)}"]`));
      // Reached by the keyboard…
      await mark.focus();
      await expect(mark).toBeFocused();
      // …and by the pointer: Playwright clicks where the mark is drawn and refuses while another mark covers that spot.
      await mark.click({ timeout: 10_000 });
      await expect(page).toHaveURL(operationPath(projectId, op.id));
      await page.goBack();
      await expect(figure).toBeVisible();
    }
  } finally {
    await clearFaults(request);
  }
});
