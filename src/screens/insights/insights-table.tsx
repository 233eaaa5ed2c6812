import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import type { Figures, InsightRange, InsightRow } from '../../api/insights-schemas';
import { TableHead } from '../../components/table-head';
import { failedFilters, failureRate, historyHref, PREVIOUS_WINDOW_NAMES, retriedShare, runsFilters, WINDOW_NAMES } from '../../model/insight-figures';
import { formatCount } from '../../lib/format';
import { countChange, durationChange, formatMs, formatRate, rateChange } from './figure-format';

/** Why Queue p50 is "—" although operations ran: the collector reads at its pace, and saw none of them still queued. */
const QUEUE_NOT_SEEN = "not seen: operations queue for less than the collector's interval";

export const FIGURE_COLUMNS = ['Runs', 'Failed', 'Failure rate', 'p50', 'p95', 'Queue p50', 'Retried'] as const;

interface InsightsTableProps {
  /** What the table is of, for its caption: "Operations per action". */
  caption: string;
  /** The first column: Action (one project's page) or Project (/insights). */
  keyHeader: 'Action' | 'Project';
  rows: readonly InsightRow[];
  range: InsightRange;
  /** The row's header cell's content (a project's name links to its own insights). */
  rowName: (row: InsightRow) => ReactNode;
  /** Whose history and which action a row's figures link to. */
  historyOf: (row: InsightRow) => { projectId: string; action?: string | undefined };
}

/** A figure with its change against the previous window beside it, in words and signs. */
function FigureCell({
  label,
  children,
  detail,
  detailWraps = false,
  change,
  against,
}: {
  label: string;
  children: ReactNode;
  detail?: string | undefined;
  /** A sentence rather than a figure's few words: it wraps in its cell rather than widening the column. */
  detailWraps?: boolean;
  change: string;
  against: string;
}) {
  return (
    <td data-label={label} className="insight-cell">
      <span className="insight-cell__figure">{children}</span>
      {detail && <span className={`insight-cell__detail muted small${detailWraps ? ' insight-cell__detail--wraps' : ''}`}> {detail}</span>}
      <span className="insight-cell__change small">
        <span className="visually-hidden">; against {against}: </span>
        {change}
      </span>
    </td>
  );
}

/** How many runs a duration percentile rests on: the finished operations with a duration (docs/insights.md). */
const restsOn = (figures: Figures) => (figures.p50Ms === null ? undefined : `of ${formatCount(figures.timed)} ${figures.timed === 1 ? 'run' : 'runs'}`);

/**
 * The figures as a real table, a row per action or project: Runs and Failed link to the history filtered to
 * exactly those operations; each figure shows its change against the previous window of the same length.
 * On a phone each row is a card (layout.css), still a table to assistive technology.
 */
export function InsightsTable({ caption, keyHeader, rows, range, rowName, historyOf }: InsightsTableProps) {
  const against = PREVIOUS_WINDOW_NAMES[range.window];
  return (
    <div className="table-wrap">
      <table className="data-table insights-table">
        <caption>
          {caption}, {WINDOW_NAMES[range.window]}; beside each figure, its change against {against}.
        </caption>
        <TableHead columns={[keyHeader, ...FIGURE_COLUMNS]} />
        <tbody>
          {rows.map((row) => {
            const { current, previous } = row;
            const { projectId, action } = historyOf(row);
            const rate = failureRate(current);
            const counted = current.runs - current.uncounted;
            const retried = retriedShare(current);
            return (
              <tr key={row.key}>
                <th scope="row" data-label={keyHeader} className="cell--first">
                  {rowName(row)}
                </th>
                <FigureCell label="Runs" change={countChange(current.runs, previous.runs)} against={against}>
                  <Link to={historyHref(projectId, runsFilters(range.current, action))}>{formatCount(current.runs)}</Link>
                </FigureCell>
                <FigureCell label="Failed" change={countChange(current.failed, previous.failed)} against={against}>
                  <Link to={historyHref(projectId, failedFilters(range.current, action))}>{formatCount(current.failed)}</Link>
                </FigureCell>
                <FigureCell
                  label="Failure rate"
                  detail={rate === null ? undefined : `${formatCount(current.failed)} of ${formatCount(counted)}`}
                  change={rateChange(rate, failureRate(previous))}
                  against={against}
                >
                  {formatRate(rate)}
                </FigureCell>
                <FigureCell label="p50" detail={restsOn(current)} change={durationChange(current.p50Ms, previous.p50Ms)} against={against}>
                  {formatMs(current.p50Ms)}
                </FigureCell>
                <FigureCell label="p95" detail={restsOn(current)} change={durationChange(current.p95Ms, previous.p95Ms)} against={against}>
                  {formatMs(current.p95Ms)}
                </FigureCell>
                <FigureCell
                  label="Queue p50"
                  detail={current.queued > 0 ? `of ${formatCount(current.queued)} seen queued` : current.runs > 0 ? QUEUE_NOT_SEEN : undefined}
                  detailWraps={current.queued === 0}
                  change={durationChange(current.queueP50Ms, previous.queueP50Ms)}
                  against={against}
                >
                  {formatMs(current.queueP50Ms)}
                </FigureCell>
                <FigureCell
                  label="Retried"
                  detail={retried === null ? undefined : `${formatCount(current.retried)} of ${formatCount(current.runs)}`}
                  change={rateChange(retried, retriedShare(previous))}
                  against={against}
                >
                  {formatRate(retried)}
                </FigureCell>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
