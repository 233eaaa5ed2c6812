import { useId, useMemo, useState, type MouseEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { paths } from '../../../config/paths';
import { formatClock, formatDateTime, formatDay } from '../../../lib/date-time-format';
import { formatCount, formatDuration, humanizeAction } from '../../../lib/format';
import { durationOf, statusLabel } from '../../../model/operation-status';
import { useTimeZone } from '../../../lib/time-zone';
import { useNow } from '../../../lib/use-now';
import {
  axisTicks,
  layoutTimeline,
  markReach,
  MAX_MARKS,
  stackMarks,
  type TimelineLane as Lane,
  type TimelineMark as Mark,
  type TimelineOperation,
} from './timeline-layout';
import { TimelineMark } from './timeline-mark';

const WINDOWS = [
  { value: 'hour', label: 'Last hour', ms: 3_600_000 },
  { value: '6h', label: 'Last 6 hours', ms: 6 * 3_600_000 },
  { value: 'day', label: 'Last day', ms: 86_400_000 },
  { value: 'week', label: 'Last week', ms: 7 * 86_400_000 },
] as const;

/** A preset, the filters' time range, or from the oldest match to now. */
type WindowChoice = (typeof WINDOWS)[number]['value'] | 'range' | 'matches';

const WIDTH = 960;
const LABEL_WIDTH = 190;
/** The longest lane label, in characters, that fits LABEL_WIDTH at the phone's 14-unit type. */
const LABEL_CHARS = 22;
const RIGHT_PAD = 18;
const LANE_HEIGHT = 26;
/** Each further row of a lane whose marks would cover each other (timeline-layout.ts, stackMarks). */
const ROW_HEIGHT = 18;
const AXIS_HEIGHT = 26;

interface TimelineFigureProps {
  projectId: string;
  /** The operations that match the filters, newest first. */
  operations: readonly TimelineOperation[];
  branchNames: ReadonlyMap<string, string>;
  computeNames: ReadonlyMap<string, string>;
  /** The filters' time range, offered as a window. */
  from: string | undefined;
  to: string | undefined;
  /** Whether the operations are a filtered few: then the window spans them all at first. */
  filtered: boolean;
  /** The matches are on their way (the archive is asked): the figure says so, never "no matching operations". */
  pending?: boolean | undefined;
}

/** Each lane as tall as its rows (marks that would cover each other are drawn one row below the other), and the chart's height. */
function placeLanes(lanes: readonly Lane[], x: (t: number) => number) {
  const placed: { lane: Lane; rows: number[]; y: number }[] = [];
  let top = AXIS_HEIGHT;
  for (const lane of lanes) {
    const stack = stackMarks(lane.marks.map((mark) => markReach(x(mark.start), x(mark.end), mark.tone, mark.live)));
    placed.push({ lane, rows: stack.rows, y: top + LANE_HEIGHT / 2 });
    top += LANE_HEIGHT + (stack.count - 1) * ROW_HEIGHT;
  }
  return { lanes: placed, height: Math.max(top, AXIS_HEIGHT + LANE_HEIGHT) };
}

const isPlainClick = (event: MouseEvent) => event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;

/**
 * The operations that match, drawn over time: one lane per branch and compute, each a link to its
 * page, those in flight growing as time passes. The caption says what is drawn in words.
 */
export function TimelineFigure({ projectId, operations, branchNames, computeNames, from, to, filtered, pending = false }: TimelineFigureProps) {
  const id = useId();
  const navigate = useNavigate();
  const [zone] = useTimeZone();
  const [chosen, setChosen] = useState<WindowChoice | null>(null);
  const fallback: WindowChoice = from !== undefined ? 'range' : filtered ? 'matches' : 'day';
  const choice: WindowChoice = (chosen === 'range' && from === undefined) || (chosen === 'matches' && !filtered) ? fallback : (chosen ?? fallback);
  const anyLive = useMemo(() => operations.some((op) => durationOf(op).kind === 'live'), [operations]);
  const now = useNow(anyLive ? 1_000 : 30_000);
  const preset = WINDOWS.find((w) => w.value === choice);
  const end = choice === 'range' && to !== undefined ? Date.parse(to) : now;
  const oldestMatch = operations.at(-1);
  const start = preset
    ? end - preset.ms
    : choice === 'matches'
      ? Math.min(end - 3_600_000, oldestMatch ? Date.parse(oldestMatch.created_at) : end)
      : Date.parse(from ?? '') || end - 86_400_000;
  const layout = useMemo(
    () => layoutTimeline({ operations, start, end, now, branchNames, computeNames }),
    [operations, start, end, now, branchNames, computeNames],
  );

  const x = (t: number) => LABEL_WIDTH + ((Math.min(end, Math.max(start, t)) - start) / Math.max(1, end - start)) * (WIDTH - LABEL_WIDTH - RIGHT_PAD);
  const { lanes, height } = placeLanes(layout.lanes, x);
  const long = end - start > 2 * 86_400_000;
  const failed = layout.lanes.reduce((n, lane) => n + lane.marks.filter((m) => m.tone === 'danger').length, 0);
  const live = layout.lanes.reduce((n, lane) => n + lane.marks.filter((m) => m.live).length, 0);
  const windowName = preset
    ? preset.label.toLowerCase()
    : choice === 'matches'
      ? `from the oldest match found (${formatDateTime(new Date(start).toISOString(), zone)}) to now`
      : `${formatDateTime(new Date(start).toISOString(), zone)} to ${formatDateTime(new Date(end).toISOString(), zone)}`;
  const open = (event: MouseEvent, href: string) => {
    if (!isPlainClick(event)) return;
    event.preventDefault();
    void navigate(href);
  };
  const labelOf = (mark: Mark, lane: string) => {
    const op = mark.operation;
    const took = mark.live ? `running for ${formatDuration(mark.end - mark.start)}` : `took ${formatDuration(mark.end - mark.start)}`;
    return `${humanizeAction(op.action)}, ${statusLabel(op.status)}, ${lane}, started ${formatDateTime(op.created_at, zone)}, ${took}`;
  };

  return (
    <figure className="timeline" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>
        <strong>Timeline</strong>{' '}
        <span className="muted">
          of the operations {filtered ? 'that match' : 'loaded'}, {windowName}: {formatCount(layout.shown)} on {layout.lanes.length}{' '}
          {layout.lanes.length === 1 ? 'lane' : 'lanes'}
          {failed > 0 && `, ${failed} marked ${statusLabel('failed')}`}
          {live > 0 && `, ${live} in progress`}
          {layout.left > 0 && ` (the newest ${MAX_MARKS}; ${formatCount(layout.left)} older ones in this window not drawn)`}.
        </span>
      </figcaption>
      <div className="timeline__controls">
        <label htmlFor={`${id}-window`}>Window</label>{' '}
        <select id={`${id}-window`} value={choice} onChange={(event) => setChosen(event.target.value as WindowChoice)}>
          {WINDOWS.map((w) => (
            <option key={w.value} value={w.value}>
              {w.label}
            </option>
          ))}
          {filtered && <option value="matches">All matches</option>}
          {from !== undefined && <option value="range">The time range</option>}
        </select>
        <span className="timeline__legend muted small" aria-hidden="true">
          <span className="tl-key tl-key--success" /> OK <span className="tl-key tl-key--danger" /> Error <span className="tl-key tl-key--progress" /> In
          progress <span className="tl-key tl-key--neutral" /> Cancelled, skipped
        </span>
      </div>
      {pending ? (
        <p className="muted timeline__empty" role="status">
          Finding the matches…
        </p>
      ) : layout.shown === 0 ? (
        <p className="muted timeline__empty">No matching operations in this window.</p>
      ) : (
        <svg className="timeline__chart" viewBox={`0 0 ${WIDTH} ${height}`} width="100%" role="group" aria-labelledby={`${id}-caption`}>
          {axisTicks(start, end).map((t) => (
            <g key={t} className="tl-tick" aria-hidden="true">
              <line x1={x(t)} x2={x(t)} y1={AXIS_HEIGHT - 6} y2={height} />
              <text x={x(t)} y={AXIS_HEIGHT - 10} textAnchor="middle">
                {long ? formatDay(t, zone, now) : formatClock(t, zone)}
              </text>
            </g>
          ))}
          {lanes.map(({ lane, rows, y }) => {
            const name = lane.compute ? `${lane.branch} · ${lane.compute}` : lane.branch;
            return (
              <g key={lane.key} className="tl-lane">
                <text x={LABEL_WIDTH - 10} y={y + 4} textAnchor="end" className="tl-lane__label">
                  {/* Short enough for the label gutter at a phone's larger type too (layout.css): never cut at its start. */}
                  {name.length > LABEL_CHARS ? `${name.slice(0, LABEL_CHARS - 1)}…` : name}
                </text>
                <line className="tl-lane__rule" x1={LABEL_WIDTH} x2={WIDTH - RIGHT_PAD} y1={y} y2={y} aria-hidden="true" />
                {lane.marks.map((mark, m) => (
                  <TimelineMark
                    key={mark.operation.id}
                    href={paths.operation(projectId, mark.operation.id)}
                    label={labelOf(mark, name)}
                    x1={x(mark.start)}
                    x2={x(mark.end)}
                    y={y + (rows[m] ?? 0) * ROW_HEIGHT}
                    tone={mark.tone}
                    live={mark.live}
                    onOpen={open}
                  />
                ))}
              </g>
            );
          })}
        </svg>
      )}
    </figure>
  );
}
