import { useState } from 'react';
import { Link } from 'react-router-dom';
import { describeError } from '../../api/api-error';
import { ErrorCallout } from '../../components/error-callout';
import { paths } from '../../config/paths';
import { useKeepHistoryAction } from '../../features/history/keep-history';

/**
 * What the insights count comes from the history archive: where it holds nothing of what the page is about,
 * the page says so and offers the archive screen's own action, "Keep history" (the session's key kept, sealed,
 * read with from then on). Once the key is kept, it says the archive is reading instead.
 */
export function KeepHistoryOffer({ ownKeyKept, what }: { ownKeyKept: boolean; what: string }) {
  const [announcement, setAnnouncement] = useState('');
  const { keep, keepHistory } = useKeepHistoryAction(setAnnouncement);

  return (
    <div className="insights-offer">
      <p>{what}</p>
      {ownKeyKept ? (
        <p className="muted">This session’s key is kept: the archive is reading what it reaches, and the figures appear here as it does.</p>
      ) : (
        <>
          <p>
            Insights are counted from the console’s own record of operations, the history archive. “Keep history” stores this session’s API key on the console’s
            server, sealed, and reads every project it reaches with it, only to read (<Link to={paths.archive()}>History archive</Link> says more).
          </p>
          <p>
            <button type="button" onClick={() => void keepHistory()} disabled={keep.isPending}>
              Keep history
            </button>
            {keep.isPending && <span className="muted"> Keeping… (the first key kept starts the archive’s store: this can take a minute)</span>}
          </p>
          {keep.isError && <ErrorCallout title="History is not being kept." {...describeError(keep.error)} onRetry={() => void keepHistory()} />}
        </>
      )}
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
    </div>
  );
}
