import type { MatchesExport } from './use-matches-export';

/** Export everything that matches the filters (the whole history when none are set), as CSV or NDJSON. */
export function ExportMatchesButtons({ exporter, disabled }: { exporter: MatchesExport; disabled: boolean }) {
  const { pending, result, start, cancel } = exporter;
  return (
    <span role="group" aria-label="Export everything that matches" className="export-matches">
      <button type="button" disabled={disabled || pending !== null} onClick={() => start('csv')}>
        Export all matches as CSV
      </button>{' '}
      <button type="button" disabled={disabled || pending !== null} onClick={() => start('ndjson')}>
        Export all matches as NDJSON
      </button>
      <span role="status" className="muted small">
        {pending ? ' Searching the whole history for the export…' : result ? ` ${result}` : ''}
      </span>
      {pending && (
        <button type="button" onClick={cancel}>
          Cancel export
        </button>
      )}
    </span>
  );
}
