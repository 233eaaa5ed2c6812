import { Link } from 'react-router-dom';
import { TableHead } from '../../components/table-head';
import { NO_FILTERS } from '../../model/filters';
import { historyHref, rangeFilters, type BucketUnit } from '../../model/insight-figures';
import { formatCount } from '../../lib/format';
import { choiceStatuses, shownChoices, type ChartBucket } from './chart-series';

/**
 * The chart's numbers as a table, a row per day (hour): the day links to its history, each count to that
 * day's history filtered to its status. Open at first, so the numbers are there without a click.
 */
export function ChartTable({ projectId, unit, buckets }: { projectId: string; unit: BucketUnit; buckets: readonly ChartBucket[] }) {
  const choices = shownChoices(buckets);
  const when = unit === 'day' ? 'Day (UTC)' : 'Hour (UTC)';
  return (
    <details className="insights-chart__numbers" open>
      <summary>The chart’s numbers</summary>
      <div className="table-wrap">
        <table className="data-table">
          <caption className="visually-hidden">Operations per {unit} by status (UTC)</caption>
          <TableHead columns={[when, ...choices, 'All']} />
          <tbody>
            {buckets.map((bucket) => (
              <tr key={bucket.from}>
                <th scope="row" data-label={when} className="cell--first">
                  <Link to={historyHref(projectId, rangeFilters(bucket))}>{bucket.name}</Link>
                </th>
                {choices.map((choice) => {
                  const count = bucket.counts[choice] ?? 0;
                  return (
                    <td key={choice} data-label={choice}>
                      {count === 0 ? (
                        '0'
                      ) : (
                        <Link to={historyHref(projectId, { ...NO_FILTERS, ...rangeFilters(bucket), status: choiceStatuses(choice) })}>
                          {formatCount(count)}
                        </Link>
                      )}
                    </td>
                  );
                })}
                <td data-label="All">{formatCount(bucket.total)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
