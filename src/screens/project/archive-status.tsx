import { describeError } from '../../api/api-error';
import { RelativeTime } from '../../components/relative-time';
import { formatCount } from '../../lib/format';
import type { ArchivedMatches } from './use-archived-matches';

/**
 * Where a filtered history's matches come from, in words: the archive over the whole record (and
 * whether it is still reading the older history), or why the page walks the API instead.
 */
export function ArchiveStatus({ matches, now }: { matches: ArchivedMatches; now: number }) {
  if (matches.source === 'asking') {
    return (
      <p role="status" className="muted archive-status">
        Asking the history archive…
      </p>
    );
  }
  if (matches.source === 'api') {
    if (matches.stoppedAt !== undefined) {
      return (
        <p role="status" className="muted archive-status">
          The history archive stopped following this project after its last read <RelativeTime iso={matches.stoppedAt} now={now} /> (no kept key that reaches it
          works any more): it does not hold newer operations, so this filter searches the API.
        </p>
      );
    }
    if (matches.problem === null) return null;
    return (
      <p role="alert" className="archive-status archive-status--problem">
        <span aria-hidden="true">⚠ </span>The history archive could not answer ({describeError(matches.problem).message}): searching through the API instead.{' '}
        {/* The console asks again by itself (the retry policy's backoff); this asks now. */}
        <button type="button" onClick={matches.retry}>
          Retry the archive
        </button>
      </p>
    );
  }
  if (matches.source !== 'archive') return null;
  const count = matches.operations.length;
  // The archive's own count when it gave one (a figure that links here reads the same), else what is loaded.
  const total = matches.hasMore ? matches.total : undefined;
  const found =
    total !== undefined
      ? `${formatCount(total)} ${total === 1 ? 'match' : 'matches'}`
      : `${formatCount(count)}${matches.hasMore ? '+' : ''} ${count === 1 ? 'match' : 'matches'}`;
  const coverage = matches.coverage;
  return (
    <div className="archive-status">
      <p role="status">
        From the history archive, over the whole record of this project: {found}
        {matches.hasMore
          ? total !== undefined
            ? ` (the newest ${formatCount(count)} loaded; Load more for the rest)`
            : ' (the newest loaded; Load more for the rest)'
          : ''}
        .{coverage && !coverage.backfilled && ' The archive is still reading this project’s older history: older matches may be missing until it is done.'}
      </p>
      {coverage?.lastReadAt && (
        <p className="muted small">
          Last read from the API <RelativeTime iso={coverage.lastReadAt} now={now} />. No API request is spent on this search.
        </p>
      )}
    </div>
  );
}
