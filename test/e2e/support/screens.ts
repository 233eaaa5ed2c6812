import { expect, type Locator, type Page } from '@playwright/test';
import type { ApiOperation, ListedProject } from './api';

/** The console's name for an action (DESIGN §3: `create_branch` reads "Create branch"). */
export function actionName(action: string): string {
  const words = action.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function projectPath(projectId: string): string {
  return `/projects/${encodeURIComponent(projectId)}`;
}

export function operationPath(projectId: string, operationId: string): string {
  return `${projectPath(projectId)}/operations/${encodeURIComponent(operationId)}`;
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The projects list, showing the list the project is in (personal, or its organization's). */
export async function showProjectInList(page: Page, project: ListedProject): Promise<Locator> {
  await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeVisible();
  if (project.organization) {
    await page.getByLabel('Organization').selectOption({ label: project.organization.name });
  }
  const link = page.getByRole('main').getByRole('link', { name: project.name, exact: true });
  await expect(link).toBeVisible();
  return link;
}

/** The operations table of a project's page (the page also has a table of branches and computes). */
export function operationsTable(page: Page): Locator {
  return page.getByRole('main').getByRole('table', { name: /^Operations/ });
}

export interface ShownOperation {
  id: string;
  href: string;
  /** The status cell as a screen reader reads it (decorative icons left out). */
  status: string;
}

/** Every row of the operations table: the operation it links to and the status it shows. */
export async function readOperationsTable(table: Locator): Promise<ShownOperation[]> {
  return table.evaluate((element) => {
    const readable = (node: Node): string => {
      if (node instanceof Element && node.getAttribute('aria-hidden') === 'true') return '';
      if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
      return Array.from(node.childNodes, readable).join('');
    };
    const headers = Array.from(element.querySelectorAll('thead th'), (th) => readable(th).trim());
    const statusColumn = headers.indexOf('Status');
    return Array.from(element.querySelectorAll('tbody tr'), (row) => {
      const href = row.querySelector('a[href*="/operations/"]')?.getAttribute('href') ?? '';
      const cell = statusColumn >= 0 ? row.children[statusColumn] : undefined;
      return {
        id: decodeURIComponent(href.split('/operations/')[1] ?? ''),
        href,
        status: cell ? readable(cell).replace(/\s+/g, ' ').trim() : '(no Status column)',
      };
    });
  });
}

/** Differences between the table and the API's walk, in words short enough to read in a failure. */
export function compareWithApi(shown: readonly ShownOperation[], walked: readonly ApiOperation[], label: (s: string) => string) {
  const seen = new Map<string, number>();
  for (const row of shown) seen.set(row.id, (seen.get(row.id) ?? 0) + 1);
  const duplicated = [...seen].filter(([, n]) => n > 1).map(([id, n]) => `${id} ×${n}`);
  const walkedIds = new Set(walked.map((op) => op.id));
  const missing = walked.filter((op) => !seen.has(op.id)).map((op) => op.id);
  const unknown = shown.filter((row) => !walkedIds.has(row.id)).map((row) => row.id || `(no link: ${row.href})`);
  const firstOutOfOrder = shown.findIndex((row, i) => row.id !== walked[i]?.id);
  const wrongStatus = shown
    .map((row, i) => ({ row, op: walked[i] }))
    .filter(({ row, op }) => op !== undefined && op.id === row.id && row.status !== label(op.status))
    .map(({ row, op }) => `${row.id}: shows "${row.status}", API says ${op?.status}`);
  return {
    rows: shown.length,
    duplicated: duplicated.slice(0, 5),
    missing: missing.slice(0, 5),
    unknown: unknown.slice(0, 5),
    firstOutOfOrder: firstOutOfOrder === -1 ? null : firstOutOfOrder,
    wrongStatus: wrongStatus.slice(0, 5),
  };
}

export function detailStatus(page: Page): Locator {
  return page.getByRole('main').getByTestId('operation-status');
}

export function pickOperation(ops: readonly ApiOperation[], index: number): ApiOperation {
  const op = ops[Math.min(index, ops.length - 1)];
  if (!op) throw new Error('the project has no operations');
  return op;
}
