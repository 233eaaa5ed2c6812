import { expect, test, type APIRequestContext, type BrowserContext } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import { ARCHIVE_SOURCES_PATH, ArchiveSourcesSchema, archiveSourcePath } from '../../src/api/archive-schemas';
import { startReceiver } from '../server/notify/loopback-receiver';
import { ControlApi, sendWhenNotBusy } from './support/api';
import { expectNoSeriousViolations } from './support/axe';
import { clearFaults, setFaults } from './support/faults';
import { E2E_API_KEY, holdKey } from './support/session';

// Notifications end to end (docs/notifications.md), against the lane's own server (WEBHOOK_ALLOW_PRIVATE=1, so a receiver
// on loopback may be added): the archive's collector reads the project with no tab open, the dispatcher turns
// what it saw into one event, and the receiver gets it signed. The fault control holds an operation's status
// ("unknown-values" on one id) so the test decides when it fails or ends.
test.describe.configure({ mode: 'serial' });

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let context: BrowserContext;
let secret = '';
let projectId = '';

test.beforeAll(async () => {
  receiver = await startReceiver();
});

// The lane's other specs meet a server that reads nothing on its own: the kept key is removed.
test.afterAll(async ({ browser, baseURL, request }) => {
  await clearFaults(request);
  await receiver.close();
  const cleanup = await browser.newContext({ ...(baseURL ? { baseURL } : {}) });
  await holdKey(cleanup);
  const { sources } = ArchiveSourcesSchema.parse(await (await cleanup.request.get(ARCHIVE_SOURCES_PATH)).json());
  for (const source of sources.filter((s) => s.isOwnKey)) expect((await cleanup.request.delete(archiveSourcePath(source.id))).ok()).toBe(true);
  await cleanup.close();
});

/** Checks a delivery as a receiver does, with Standard Webhooks' own library (npm standardwebhooks): signature and timestamp. */
function verifies(headers: Record<string, string | string[] | undefined>, body: string): boolean {
  try {
    new Webhook(secret).verify(body, {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

/** The events the receiver has been sent, from the `from`th on, as their bodies say. */
function receivedEvents(from = 0): { type: string; project: { id: string }; operation: { id: string } }[] {
  return receiver.received.slice(from).map((r) => JSON.parse(r.body) as { type: string; project: { id: string }; operation: { id: string } });
}

/** Starts work in the project (a branch), returning its first operation. */
async function startWork(request: APIRequestContext): Promise<string> {
  const created = await sendWhenNotBusy(() =>
    request.post(`/api/v2/projects/${projectId}/branches`, { headers: { Authorization: `Bearer ${E2E_API_KEY}` }, data: {} }),
  );
  const body = (await created.json()) as { operations: { id: string }[] };
  const first = body.operations[0];
  if (!first) throw new Error('a branch without operations');
  return first.id;
}

test('a "Failed" rule for one project: the receiver gets exactly one signed event, with no tab open', async ({ browser, baseURL, request }) => {
  test.setTimeout(150_000);
  const api = new ControlApi(request, E2E_API_KEY);
  const project = (await api.allProjects()).find((p) => p.name === 'scratchpad');
  if (!project) throw new Error('the seed has no scratchpad project');
  projectId = project.id;

  context = await browser.newContext({ ...(baseURL ? { baseURL } : {}) });
  await holdKey(context);
  const page = await context.newPage();
  // The archive reads the project from now on (notifications come from what its collector sees).
  await page.goto('/settings/archive');
  // No key is kept on this lane's server yet: the button is enabled once the page has read the sources.
  const keep = page.getByRole('button', { name: 'Keep history' });
  await expect(keep).toBeEnabled();
  await keep.click();
  const source = page.getByRole('table', { name: 'Keys the archive reads with' }).getByRole('row', { name: /Demo User/ });
  await expect(source.getByText('Following')).toBeVisible({ timeout: 120_000 });

  await page.goto('/settings/notifications');
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Webhook URL' }).fill(receiver.url);
  await page.getByRole('combobox', { name: 'Projects' }).selectOption('project');
  await page.getByRole('textbox', { name: 'Project ID' }).fill(projectId);
  await expect(page.getByRole('checkbox', { name: 'Failed' })).toBeChecked();
  await expect(page.getByRole('checkbox', { name: 'Finished' })).not.toBeChecked();
  await page.getByRole('button', { name: 'Add webhook' }).click();
  const shown = page.getByRole('textbox', { name: 'Signing secret' });
  await expect(shown).toHaveAttribute('readonly');
  secret = await shown.inputValue();
  expect(secret.length).toBeGreaterThan(16);
  await expectNoSeriousViolations(page);
  await page.close();

  // No tab open from here on. The platform fails an operation.
  const operationId = await startWork(request);
  await setFaults(request, [{ path: `/projects/${projectId}/**`, fault: { type: 'unknown-values', status: 'failed', ids: [operationId] } }]);
  await expect.poll(() => receiver.received.length, { timeout: 60_000 }).toBeGreaterThan(0);
  const arrived = Date.now();
  const [delivery] = receiver.received;
  if (!delivery) throw new Error('nothing received');
  const event = JSON.parse(delivery.body) as { id: string; type: string; project: { id: string }; operation: { id: string; status: string }; url: string };
  expect(event).toMatchObject({ type: 'operation.failed', project: { id: projectId }, operation: { id: operationId, status: 'failed' } });
  expect(event.url).toMatch(new RegExp(`/projects/${projectId}/operations/${operationId}$`));
  expect(delivery.headers['content-type']).toMatch(/^application\/json/);
  expect(delivery.headers['webhook-id']).toBe(event.id);
  expect(verifies(delivery.headers, delivery.body)).toBe(true);

  // The delivery log says what went out, in the console's table.
  const logPage = await context.newPage();
  await logPage.goto('/settings/notifications');
  const log = logPage.getByRole('table', { name: `Delivery log: ${receiver.url}` });
  await expect(log.getByRole('row', { name: /scratchpad .* Failed .*Delivered 200/ })).toBeVisible();
  await expect(log.getByRole('button', { name: 'Redeliver' })).toBeVisible();
  await expectNoSeriousViolations(logPage);
  await logPage.setViewportSize({ width: 1280, height: 900 });
  await logPage.getByRole('button', { name: 'Payload and answer' }).first().click();
  await expectNoSeriousViolations(logPage);
  await logPage.screenshot({ path: '/tmp/wh-log.png', fullPage: true });
  await logPage.setViewportSize({ width: 390, height: 800 });
  await logPage.screenshot({ path: '/tmp/wh-log-phone.png', fullPage: true });
  await logPage.close();

  // wall-clock: a second event for it (a duplicate), or one the rule does not ask for, would come within the
  // collector's next rounds (busy projects every second on the test servers, the delivery loop every second): 5 s
  // from the first.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, 5_000 - (Date.now() - arrived))));
  const events = receivedEvents();
  expect(events.filter((e) => e.operation.id === operationId)).toHaveLength(1);
  // Nothing the rule does not ask for: no finish, no other project. Another operation of this project may fail
  // meanwhile, and is then rightly told (fc27: the platform's own availability check, one of the 2 % of first attempts
  // the simulator fails at random, sim/control-plane/operations.ts).
  for (const e of events) expect(e).toMatchObject({ type: 'operation.failed', project: { id: projectId } });
  await clearFaults(request);
});

test('"Notify me when it ends" on a watched operation: the tab is closed, the operation ends, the event arrives', async ({ request }) => {
  test.setTimeout(120_000);
  const before = receiver.received.length;
  const operationId = await startWork(request);
  // Held in flight until the tab is closed.
  await setFaults(request, [{ path: `/projects/${projectId}/**`, fault: { type: 'unknown-values', status: 'running', ids: [operationId] } }]);
  const page = await context.newPage();
  await page.goto(`/projects/${projectId}/operations/${operationId}`);
  await page
    .getByRole('button', { name: /^Watch / })
    .first()
    .click();
  const tray = page.getByRole('complementary', { name: 'Watched operations' });
  await tray.getByRole('button', { name: 'Notify me when it ends' }).click();
  await expect(tray.getByRole('status').filter({ hasText: /even with this tab closed/ })).toBeVisible();
  await page.close();
  await context.close();

  await clearFaults(request);
  const eventTypes = (): string[] =>
    receivedEvents(before)
      .filter((e) => e.operation.id === operationId)
      .map((e) => e.type);
  await expect.poll(() => eventTypes().length, { timeout: 60_000 }).toBeGreaterThan(0);
  // One event, the end the API reports. The simulated platform fails 2% of first attempts at random
  // (sim/control-plane/operations.ts): a failed attempt is an end the person hears of, unless the collector's
  // first read after the tab closed already found the retry finished.
  const ended = await new ControlApi(request, E2E_API_KEY).operation(projectId, operationId);
  const types = eventTypes();
  expect(types).toHaveLength(1);
  expect(ended.failures_count > 0 ? ['operation.failed', 'operation.finished'] : ['operation.finished']).toContain(types[0]);
  const delivery = receiver.received.slice(before).find((r) => r.body.includes(operationId));
  expect(verifies(delivery?.headers ?? {}, delivery?.body ?? '')).toBe(true);
});
