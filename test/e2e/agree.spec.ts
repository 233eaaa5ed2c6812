import { expect, test } from '@playwright/test';
import { ControlApi } from './support/api';
import { expectNoSeriousViolations } from './support/axe';
import { layoutProblems } from './support/layout';
import { projectPath } from './support/screens';
import { E2E_API_KEY, holdKey } from './support/session';

// What a new user still hit (docs/console.md): the page agrees with itself at 1400 and 390 px. The rules behind
// each are tested in Vitest (test/screens); this checks the layout a browser draws.

test('at 1400 px Activity reports a bad address in words and lays its filters out in one row', async ({ page, context }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await holdKey(context);
  await page.goto('/activity?status=bogus&project=nope');
  await expect(page.getByText('“bogus” in the address’s status is not a status operations have: showing any status.')).toBeVisible();
  await expect(page.getByText('“project=nope” in the address is not a project this key reaches: showing every project.')).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Project', exact: true })).toHaveValue('');
  const bar = page.getByRole('search', { name: 'Filter operations' });
  const controls = [
    bar.getByRole('button', { name: /^Status/ }),
    bar.getByRole('button', { name: /^Action/ }),
    bar.getByRole('combobox', { name: 'Project', exact: true }),
    bar.getByRole('combobox', { name: /Ended within/ }),
    bar.getByRole('button', { name: 'Clear filters' }),
  ];
  const bottoms = await Promise.all(controls.map(async (control) => (await control.boundingBox())?.y ?? -1000));
  // One row: every control's top within a few pixels of the others'.
  expect(Math.max(...bottoms) - Math.min(...bottoms)).toBeLessThan(12);
  await expectNoSeriousViolations(page);
});

test('at 390 px the header keeps one line with its brand, the timeline’s lane labels are whole, and nothing is wider than its box', async ({
  page,
  context,
  request,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await holdKey(context);
  const projects = await new ControlApi(request, E2E_API_KEY).allProjects();
  const big = projects.find((p) => p.name === 'acme-analytics-prod');
  if (!big) throw new Error('no acme-analytics-prod in the demo');
  await page.goto(projectPath(big.id));
  const header = page.locator('header.topbar');
  await expect(page.getByRole('link', { name: 'Ops Console' })).toBeVisible();
  expect((await header.boundingBox())?.height).toBeLessThan(56);
  // The current page's link is in the strip's view; Notifications, past its edge, is reached by scrolling it.
  await page.goto('/settings/notifications');
  const current = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Notifications' });
  await expect(current).toBeInViewport({ ratio: 0.9 });

  await page.goto(projectPath(big.id));
  const timeline = page.getByRole('figure', { name: /^Timeline/ });
  await expect(timeline.locator('.tl-lane__label').first()).toBeVisible();
  // Each lane label starts inside the chart (the longest, "preview/pr-482 · ep-…", was cut at its start).
  const starts = await timeline.locator('.tl-lane__label').evaluateAll((labels) => labels.map((label) => (label as SVGTextElement).getBBox().x));
  expect(starts.length).toBeGreaterThan(1);
  expect(starts.filter((x) => x < 0)).toEqual([]);
  expect(await layoutProblems(page)).toEqual([]);
});
