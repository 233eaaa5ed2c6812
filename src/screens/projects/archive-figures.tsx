import type { ArchivedProjectSummary } from '../../api/archive-schemas';
import { RelativeTime } from '../../components/relative-time';
import { formatCount } from '../../lib/format';

/** What the archive says of a project: work in flight now, its newest operation, how long its history is. */
export function ArchiveFigures({ figures, now }: { figures: ArchivedProjectSummary | undefined; now: number }) {
  if (!figures) return <span className="muted">Not in the archive</span>;
  // One line each, so the column stays narrow enough for the table to fit its box from 1024 px.
  return (
    <>
      {figures.inFlight > 0 && <span className="tag archive-figures__line">{figures.inFlight} in progress</span>}{' '}
      {figures.lastOperationAt ? (
        <span className="archive-figures__line">
          Last <RelativeTime iso={figures.lastOperationAt} now={now} />
        </span>
      ) : (
        <span className="muted archive-figures__line">None yet</span>
      )}{' '}
      <span className="muted small archive-figures__line">
        {formatCount(figures.operations)} {figures.operations === 1 ? 'operation' : 'operations'}
        {figures.backfilled ? '' : ' so far'}
      </span>
    </>
  );
}
