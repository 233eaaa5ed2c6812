import { humanizeAction } from '../../lib/format';
import { statusLabel } from '../../model/operation-status';
import type { SettledEvent } from './watch-store';
import { watchTiming } from './watch-timing';

const ASKED_KEY = 'ops-console.notifications-asked';

const supported = () => typeof Notification !== 'undefined';

/** Asks for notification permission once, on the person's first "Watch" click (never on load). */
export function askToNotifyOnce(): void {
  if (!supported() || Notification.permission !== 'default') return;
  try {
    if (localStorage.getItem(ASKED_KEY) !== null) return;
    localStorage.setItem(ASKED_KEY, new Date().toISOString());
  } catch {
    return;
  }
  void Notification.requestPermission().catch(() => undefined);
}

/** "Create branch: OK" and where, in words; shared by notifications and the screen-reader announcement. */
export function describeSettled({ kind, entry }: SettledEvent): { title: string; body: string } {
  const op = entry.operation;
  const where = [entry.projectName ?? op.project_id, entry.branchName ?? op.branch_id, entry.computeName ?? op.endpoint_id].filter(Boolean).join(' · ');
  const outcome = kind === 'failed' ? 'failed; the platform may retry it' : watchTiming(op, Date.now());
  return { title: `${humanizeAction(op.action)}: ${statusLabel(op.status)}`, body: `${where} (${outcome})` };
}

/** A system notification per settled operation, if the person allowed them. */
export function notifySettled(events: readonly SettledEvent[]): void {
  if (!supported() || Notification.permission !== 'granted') return;
  for (const event of events) {
    const { title, body } = describeSettled(event);
    try {
      // The tag makes two tabs watching the same operation show one notification.
      new Notification(title, { body, tag: `ops-console:${event.entry.operation.id}:${event.kind}` });
    } catch {
      // Some mobile browsers only notify from a service worker; the panel still says it.
    }
  }
}
