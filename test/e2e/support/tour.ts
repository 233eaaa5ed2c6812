import { expect, type Page } from '@playwright/test';
import type { ControlApi } from './api';
import { operationsTable, projectPath } from './screens';

/** A screen of the console, and what shows once its data is on it. */
export interface TourStop {
  name: string;
  path: string;
  ready: (page: Page) => Promise<void>;
}

/**
 * The signed-in screens with a person's data on them, for the layout and dark-mode checks (archive.spec.ts,
 * while a key is kept and a webhook has a delivery) and the README's pictures: the kept keys, the
 * notifications and their delivery log, a project with its timeline, Activity, API keys and both insights.
 */
export async function tourOfScreens(api: ControlApi): Promise<TourStop[]> {
  const project = (await api.allProjects()).find((p) => p.name === 'acme-analytics-prod');
  if (!project) throw new Error('the demo seed has no acme-analytics-prod project');
  const heading = (page: Page, name: string) => expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  return [
    {
      name: 'archive',
      path: '/settings/archive',
      ready: (page) => expect(page.getByRole('table', { name: 'Keys the archive reads with' }).getByRole('row').nth(1)).toBeVisible(),
    },
    {
      name: 'notifications',
      path: '/settings/notifications',
      ready: (page) =>
        expect(
          page
            .getByRole('table', { name: /^Delivery log/ })
            .getByRole('row')
            .nth(1),
        ).toBeVisible(),
    },
    {
      name: 'project',
      path: projectPath(project.id),
      ready: async (page) => {
        await expect(operationsTable(page).locator('tbody tr').nth(3)).toBeVisible();
        await expect(page.getByRole('figure', { name: /^Timeline/ })).toBeVisible();
      },
    },
    {
      name: 'activity',
      path: '/activity',
      ready: async (page) => {
        await heading(page, 'Activity');
        await expect(
          page
            .getByRole('table', { name: /activity across projects/i })
            .or(page.getByText(/no API request spent on them/))
            .first(),
        ).toBeVisible();
      },
    },
    {
      name: 'api-keys',
      path: '/settings/api-keys',
      ready: async (page) => {
        await heading(page, 'API keys');
        await expect(page.getByRole('main').getByText(/^Loading/)).toHaveCount(0);
      },
    },
    {
      name: 'insights',
      path: '/insights',
      ready: (page) => expect(page.getByRole('table', { name: /^Operations per project/ })).toBeVisible(),
    },
    {
      name: 'project-insights',
      path: `${projectPath(project.id)}/insights`,
      ready: (page) => expect(page.getByRole('table', { name: /^Operations per action/ })).toBeVisible(),
    },
  ];
}
