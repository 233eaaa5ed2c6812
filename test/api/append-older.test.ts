import { describe, expect, it } from 'vitest';
import { appendOlder } from '../../src/api/history-walk';
import { historyOperations, type History } from '../../src/api/operations';
import type { Operation } from '../../src/api/schemas';

// A walk's page lands at the end of the one history store, and only where it continues what is loaded.

const op = (minute: number): Operation => {
  const at = new Date(Date.UTC(2026, 10, 22, 12, minute)).toISOString();
  return {
    id: `op-${minute}`,
    project_id: 'p',
    action: 'apply_config',
    status: 'finished',
    failures_count: 0,
    created_at: at,
    updated_at: at,
    total_duration_ms: 1,
  };
};
/** Operations at minutes `from` down to `to`, newest first. */
const run = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => op(from - i));
const cursorAt = (minute: number) => op(minute).created_at;

function history(...pages: [number, number, string | undefined][]): History {
  return { pages: pages.map(([from, to, next]) => ({ operations: run(from, to), next })), pageParams: pages.map(() => undefined) };
}

const minutes = (h: History) => historyOperations(h).map((o) => Number(o.id.slice(3)));

describe('appending a walk page to the history', () => {
  it('adds it as the next page when it starts where the history ends', () => {
    const before = history([50, 41, cursorAt(41)]);
    const after = appendOlder(before, { operations: run(40, 31), next: cursorAt(31) }, cursorAt(41));
    expect(minutes(after)).toEqual(run(50, 31).map((o) => Number(o.id.slice(3))));
    expect(after.pages.at(-1)?.next).toBe(cursorAt(31));
  });

  it('keeps only what lies past the loaded end when "Load more" got there first', () => {
    const before = history([50, 41, cursorAt(41)], [40, 36, cursorAt(36)]);
    const after = appendOlder(before, { operations: run(40, 31), next: cursorAt(31) }, cursorAt(41));
    expect(minutes(after)).toEqual(run(50, 31).map((o) => Number(o.id.slice(3))));
  });

  it('changes nothing when the history already holds the page, ended, or started over above it', () => {
    const ahead = history([50, 41, cursorAt(41)], [40, 20, cursorAt(20)]);
    expect(appendOlder(ahead, { operations: run(40, 31), next: cursorAt(31) }, cursorAt(41))).toBe(ahead);
    const ended = history([50, 41, undefined]);
    expect(appendOlder(ended, { operations: run(40, 31), next: cursorAt(31) }, cursorAt(41))).toBe(ended);
    // Started over from the newest (a long gap): a page from below its end would leave a hole.
    const restarted = history([90, 81, cursorAt(81)]);
    expect(appendOlder(restarted, { operations: run(40, 31), next: cursorAt(31) }, cursorAt(41))).toBe(restarted);
  });
});
