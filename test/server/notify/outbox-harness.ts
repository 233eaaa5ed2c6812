import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { CreateWebhook } from '../../../src/api/notification-schemas';
import type { Db } from '../../../server/store/db';
import { createNotifications, type Notifications, type Owner } from '../../../server/notify/notifications';
import { createApiReader } from '../../../server/proxy/api-reader';
import { createProjectAccess } from '../../../server/proxy/project-access';
import { createSeal } from '../../../server/seal/seal';
import { sendWebhook } from '../../../server/notify/send-webhook';
import type { ApiCall } from '../../../server/http/node-bridge';
import { startReceiver } from './loopback-receiver';
import { openTestStore, type Driver } from '../store/store-drivers';
import { emptyNotifyTables, recordTransition } from './notify-test-db';

// The notifications service on one store driver, as the outbox's tests drive it: the loop's own tick() and
// settle() on a simulated clock (`clock`, moved by the test), a loopback receiver, and the API as far as
// notifications ask it (the owner's key reads p1 and p2 of org-1, not p-other).

export const KEY = 'owner-api-key-000000000000000000';
export const owner: Owner = { fingerprint: 'fp-owner', apiKey: KEY };
export const seal = createSeal('a-session-secret-that-is-long-enough-for-hkdf');
export const T0 = Date.parse('2026-11-26T00:00:00Z');

export async function fakeApi(call: ApiCall): Promise<Response> {
  await Promise.resolve();
  if (call.headers.get('authorization') !== `Bearer ${KEY}`) return Response.json({ message: 'bad key' }, { status: 401 });
  const id = /\/projects\/([^/?]+)$/.exec(call.target)?.[1];
  if (id === 'p1' || id === 'p2') return Response.json({ project: { id, name: id === 'p1' ? 'Production' : 'Staging', org_id: 'org-1' } });
  return Response.json({ message: 'not found' }, { status: 404 });
}

export interface Harness {
  readonly db: Db;
  readonly receiver: Awaited<ReturnType<typeof startReceiver>>;
  clock: number;
  /** A service on the simulated clock, with no jitter. */
  service: () => Notifications;
  addWebhook: (notify: Notifications, input?: Partial<CreateWebhook>) => Promise<{ webhook: { id: string }; secret: string }>;
  /** The collector saw `operationId` fail now. */
  fail: (operationId: string, projectId?: string, extra?: Record<string, unknown>) => Promise<void>;
  /** One turn of the loop, and its deliveries answered. */
  turn: (notify: Notifications) => Promise<void>;
}

/** Opens a migrated store on `driver` for the calling file, empties it and starts a receiver before each test. */
export function useHarness(driver: Driver): Harness {
  let db: Db | undefined;
  let receiver: Harness['receiver'] | undefined;
  const h: Harness = {
    get db() {
      if (!db) throw new Error('the store is not open yet');
      return db;
    },
    get receiver() {
      if (!receiver) throw new Error('the receiver is not started yet');
      return receiver;
    },
    clock: T0,
    service: () =>
      createNotifications({
        db: h.db,
        seal,
        access: createProjectAccess(createApiReader(fakeApi), { now: () => h.clock }),
        send: sendWebhook,
        publicUrl: new URL('https://console.example.com/'),
        allowPrivate: true,
        now: () => h.clock,
        random: () => 0,
      }),
    async addWebhook(notify, input = {}) {
      const created = await notify.create(owner, { url: h.receiver.url, format: 'json', scope: { kind: 'all' }, events: ['operation.failed'], ...input });
      if (!created.ok) throw new Error(created.problem);
      return created;
    },
    fail: (operationId, projectId = 'p1', extra = {}) =>
      recordTransition(h.db, {
        projectId,
        operation: { id: operationId, status: 'failed', failures_count: 1, ...extra },
        previousStatus: 'running',
        seenAt: new Date(h.clock),
      }),
    async turn(notify) {
      await notify.tick();
      await notify.settle();
    },
  };
  beforeAll(async () => {
    db = (await openTestStore(driver)).db;
  }, 60_000);
  afterAll(() => db?.close());
  beforeEach(async () => {
    await emptyNotifyTables(h.db);
    h.clock = T0;
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver?.close();
  });
  return h;
}
