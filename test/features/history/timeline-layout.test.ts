import { describe, expect, it } from 'vitest';
import { axisTicks, layoutTimeline, markReach, MAX_MARKS, stackMarks, type TimelineOperation } from '../../../src/features/history/timeline/timeline-layout';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const MINUTE = 60_000;

function op(id: string, minutesAgo: number, fields: Partial<TimelineOperation> = {}): TimelineOperation {
  return {
    id,
    action: 'apply_config',
    status: 'finished',
    created_at: new Date(NOW - minutesAgo * MINUTE).toISOString(),
    total_duration_ms: MINUTE,
    ...fields,
  };
}

const names = {
  branchNames: new Map([
    ['br-main', 'main'],
    ['br-dev', 'dev'],
  ]),
  computeNames: new Map([['ep-1', 'primary']]),
};

describe('timeline layout', () => {
  it('puts each operation in its branch and compute lane, oldest first, from its start to its end', () => {
    const layout = layoutTimeline({
      operations: [
        op('c', 10, { branch_id: 'br-dev' }),
        op('b', 20, { branch_id: 'br-main', endpoint_id: 'ep-1' }),
        op('a', 30, { branch_id: 'br-main', endpoint_id: 'ep-1' }),
        op('z', 30, {}),
      ],
      start: NOW - 60 * MINUTE,
      end: NOW,
      now: NOW,
      ...names,
    });
    expect(layout.lanes.map((l) => [l.branch, l.compute, l.marks.map((m) => m.operation.id)])).toEqual([
      ['dev', undefined, ['c']],
      ['main', 'primary', ['a', 'b']],
      ['No branch', undefined, ['z']],
    ]);
    const [a] = layout.lanes[1]!.marks;
    expect([a!.start, a!.end]).toEqual([NOW - 30 * MINUTE, NOW - 29 * MINUTE]);
  });

  it('draws work in flight up to now, and tells failures apart', () => {
    const layout = layoutTimeline({
      operations: [op('live', 5, { status: 'running', total_duration_ms: 0 }), op('bad', 8, { status: 'failed' })],
      start: NOW - 60 * MINUTE,
      end: NOW,
      now: NOW,
      ...names,
    });
    const [bad, live] = layout.lanes[0]!.marks;
    expect(live).toMatchObject({ live: true, end: NOW, tone: 'progress' });
    expect(bad).toMatchObject({ live: false, tone: 'danger' });
  });

  it('leaves out what lies outside the window, and past the most marks draws the newest', () => {
    const many = Array.from({ length: MAX_MARKS + 20 }, (_, i) => op(`op-${i}`, i * 0.1));
    const layout = layoutTimeline({ operations: [op('old', 120), ...many], start: NOW - 60 * MINUTE, end: NOW, now: NOW, ...names });
    expect(layout.shown).toBe(MAX_MARKS);
    expect(layout.left).toBe(20);
    expect(layout.lanes[0]!.marks.some((m) => m.operation.id === 'old')).toBe(false);
  });

  it('ticks the axis on round times', () => {
    expect(axisTicks(Date.parse('2026-11-22T11:07:00Z'), Date.parse('2026-11-22T12:07:00Z')).map((t) => new Date(t).toISOString().slice(11, 16))).toEqual([
      '11:15',
      '11:30',
      '11:45',
      '12:00',
    ]);
  });

  it('draws marks that would cover each other one row below the other, and the rest on the lane’s own line', () => {
    // A restart's two (an Error diamond and a 7-unit bar at one moment), one a little later, one far later.
    const reaches = [
      markReach(100, 107, 'danger', false),
      markReach(100, 100, 'success', false),
      markReach(104, 110, 'success', false),
      markReach(300, 306, 'success', false),
    ];
    const { rows, count } = stackMarks(reaches);
    expect(rows).toEqual([0, 1, 2, 0]);
    expect(count).toBe(3);
    // No two marks on one row touch.
    const byRow = (row: number) => reaches.filter((_, i) => rows[i] === row).sort((a, b) => a.left - b.left);
    for (const row of [0, 1, 2]) {
      const marks = byRow(row);
      marks.slice(1).forEach((mark, i) => expect(mark.left).toBeGreaterThan(marks[i]!.right));
    }
  });

  it('counts the diamond before an error and the arrowhead after work in flight as part of a mark', () => {
    expect(markReach(50, 52, 'danger', true)).toEqual({ left: 42, right: 65 });
    expect(stackMarks([]).count).toBe(1);
  });
});
