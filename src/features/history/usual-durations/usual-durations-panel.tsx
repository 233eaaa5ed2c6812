import { formatCount, formatDuration, humanizeAction } from '../../../lib/format';
import { LONGER_THAN_USUAL_RULE, longerThreshold, USUAL_MIN_SAMPLES, type UsualDuration } from '../../../model/usual-durations';

interface UsualDurationsPanelProps {
  usual: ReadonlyMap<string, UsualDuration>;
  /** Operations loaded (walked) so far: the figures are over these. */
  searched: number;
}

/** How long each action usually takes in this project (p50, p95), over the history loaded so far, and the warning rule. */
export function UsualDurationsPanel({ usual, searched }: UsualDurationsPanelProps) {
  const rows = [...usual.values()].filter((u) => u.count >= USUAL_MIN_SAMPLES).sort((a, b) => b.count - a.count);
  return (
    <details className="usual-durations">
      <summary>
        Usual durations <span className="muted">(p50 and p95 per action, over the {formatCount(searched)} operations loaded)</span>
      </summary>
      <p className="muted small">
        {LONGER_THAN_USUAL_RULE} Actions with fewer than {USUAL_MIN_SAMPLES} ended operations here have no usual duration yet; searching further back adds to
        these figures.
      </p>
      {rows.length === 0 ? (
        <p className="muted">Not enough ended operations loaded yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="data-table usual-durations__table">
            <caption className="visually-hidden">Usual durations per action</caption>
            <thead>
              <tr>
                <th scope="col">Action</th>
                <th scope="col">Operations</th>
                <th scope="col">p50</th>
                <th scope="col">p95</th>
                <th scope="col">Longer than usual after</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((u) => (
                <tr key={u.action}>
                  <th scope="row" data-label="Action">
                    {humanizeAction(u.action)}
                  </th>
                  <td data-label="Operations">{formatCount(u.count)}</td>
                  <td data-label="p50">{formatDuration(u.p50)}</td>
                  <td data-label="p95">{formatDuration(u.p95)}</td>
                  <td data-label="Longer after">{formatDuration(longerThreshold(u))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}
