import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import './archive.css';
import { describeError } from '../../api/api-error';
import { archiveQueries, sourcesRefetchInterval, useRemoveArchiveSource } from '../../api/archive';
import type { ArchiveSource } from '../../api/archive-schemas';
import { loadFailure } from '../../api/load-failure';
import { ErrorCallout } from '../../components/error-callout';
import { LoadFailureCallout } from '../../components/load-failure-callout';
import { TableSkeleton } from '../../components/table-skeleton';
import { useKeepHistoryAction } from '../../features/history/keep-history';
import { useDocumentTitle } from '../../lib/use-document-title';
import { useNow } from '../../lib/use-now';
import { usePollInterval } from '../../api/use-poll-interval';
import { RemoveSourceDialog } from './remove-source-dialog';
import { SOURCE_COLUMNS, SourcesTable } from './sources-table';

interface RemoveTarget {
  source: ArchiveSource;
  /** Focus lands here once the row is gone. */
  heading: HTMLElement | null;
}

/**
 * The history archive (docs/archive.md): what keeping history means, the button that keeps the session's
 * key as a source, and the sources the console's server reads with, polled while one is backfilling.
 */
export function ArchiveScreen() {
  useDocumentTitle('History archive');
  const [intervalMs] = usePollInterval();
  const now = useNow(30_000);
  const options = archiveQueries.sources();
  const sources = useQuery({ ...options, refetchInterval: sourcesRefetchInterval(intervalMs) });
  const failure = loadFailure(sources, options.queryKey);
  const remove = useRemoveArchiveSource();
  const [confirming, setConfirming] = useState<RemoveTarget | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const { keep, keepHistory } = useKeepHistoryAction(setAnnouncement);
  const reasonId = useId();
  const sourcesHeadingId = useId();

  const list = sources.data?.sources ?? [];
  const ownKept = list.some((s) => s.isOwnKey);
  const keepDisabledReason = ownKept
    ? 'This session’s key is already kept: it is listed below. Remove it there to stop.'
    : sources.data
      ? null
      : 'Waiting for the list of kept keys…';

  async function confirmRemove({ source }: RemoveTarget) {
    setAnnouncement('');
    try {
      await remove.mutateAsync(source.id);
      setAnnouncement(`The key “${source.label}” was removed: the console no longer keeps or reads with it.`);
    } catch {
      // The callout below says why; the row stays.
    } finally {
      setConfirming(null);
    }
  }

  return (
    <section className="archive">
      <h1 tabIndex={-1}>History archive</h1>
      <p>
        The platform deletes operations older than 6 months and lists them only page by page. The console’s server can keep its own record of them, read with an
        API key it keeps.
      </p>
      <div className="archive__terms">
        <p>Pressing “Keep history” means:</p>
        <ul>
          <li>
            The API key this session is signed in with is stored on the console’s server, sealed (encrypted) with a key derived from its SESSION_SECRET, until
            you remove it here. It never comes back to any page.
          </li>
          <li>The server uses it only to read: it never changes anything with it.</li>
          <li>
            With it, the server reads every project the key reaches, their whole history and then each new operation, and keeps operations the platform deletes
            after 6 months.
          </li>
          <li>History filters and Activity for those projects are then answered from the archive, without walking the API.</li>
        </ul>
      </div>
      <p className="archive__keep">
        <button
          type="button"
          onClick={() => void keepHistory()}
          disabled={keepDisabledReason !== null || keep.isPending}
          aria-describedby={keepDisabledReason ? reasonId : undefined}
        >
          Keep history
        </button>{' '}
        {keepDisabledReason && (
          <span id={reasonId} className="muted">
            {keepDisabledReason}
          </span>
        )}
        {keep.isPending && <span className="muted"> Keeping… (the first key kept starts the archive’s store: this can take a minute)</span>}
      </p>
      {keep.isError && <ErrorCallout title="History is not being kept." {...describeError(keep.error)} onRetry={() => void keepHistory()} />}
      <p role="status" className="visually-hidden">
        {announcement}
      </p>

      <h2 id={sourcesHeadingId} tabIndex={-1}>
        Kept keys
      </h2>
      {remove.isError && <ErrorCallout title="The key was not removed." {...describeError(remove.error)} />}
      {failure ? (
        <LoadFailureCallout title="Could not load the kept keys." failure={failure} onRetry={() => void sources.refetch()} fetching={sources.isFetching} />
      ) : sources.isPending ? (
        <TableSkeleton columns={SOURCE_COLUMNS} rows={2} label="Loading the kept keys…" />
      ) : list.length === 0 ? (
        <p className="empty">No key is kept yet: the console reads history from the API only while a page is open.</p>
      ) : (
        <>
          {sources.isRefetchError && <p className="muted">Could not refresh the list: {describeError(sources.error).message} Showing the last one received.</p>}
          <SourcesTable sources={list} now={now} onRemove={(source) => setConfirming({ source, heading: document.getElementById(sourcesHeadingId) })} />
          {list.some((s) => s.state === 'backfilling') && (
            <p className="muted" role="status">
              Backfilling: this list is refreshed every {Math.round(intervalMs / 1_000)} s until the whole history is read.
            </p>
          )}
        </>
      )}
      {confirming && (
        <RemoveSourceDialog
          source={confirming.source}
          fallbackFocus={confirming.heading}
          pending={remove.isPending}
          onConfirm={() => void confirmRemove(confirming)}
          onCancel={() => setConfirming(null)}
        />
      )}
    </section>
  );
}
