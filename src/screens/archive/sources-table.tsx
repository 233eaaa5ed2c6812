import { useId } from 'react';
import type { ArchiveSource, SourceState } from '../../api/archive-schemas';
import { LongName } from '../../components/long-name';
import { RelativeTime } from '../../components/relative-time';
import { TableHead } from '../../components/table-head';
import { formatCount } from '../../lib/format';

export const SOURCE_COLUMNS = ['Label', 'Key kind', 'Projects covered', 'Operations stored', 'State', 'Last successful read', 'Last error'] as const;

/** Each state in words (never colour alone), with what it means for the record. */
export const SOURCE_STATES: Record<SourceState, { label: string; detail: string }> = {
  backfilling: { label: 'Backfilling', detail: 'reading the whole history once' },
  following: { label: 'Following', detail: 'reading new operations as they happen' },
  disabled: { label: 'Disabled', detail: 'the key was rejected (401): the archive stopped reading with it' },
};

const KEY_KINDS: Record<string, string> = { personal: 'Personal key', organization: 'Organization key', project: 'Project-scoped key' };

/** "Personal key"; a kind the console does not know, as the API says it. */
export const keyKindLabel = (kind: string) => KEY_KINDS[kind] ?? kind;

interface SourcesTableProps {
  sources: readonly ArchiveSource[];
  now: number;
  /** Asks to remove a source (offered for the session's own key only). */
  onRemove: (source: ArchiveSource, trigger: HTMLElement) => void;
}

function SourceRow({ source, now, onRemove }: { source: ArchiveSource; now: number; onRemove: SourcesTableProps['onRemove'] }) {
  const labelId = useId();
  const state = SOURCE_STATES[source.state];
  return (
    <tr>
      <th scope="row" data-label="Label" id={labelId}>
        <LongName name={source.label} />
        {source.isOwnKey && <span className="muted"> (this session’s key)</span>}
      </th>
      <td data-label="Key kind">{keyKindLabel(source.keyKind)}</td>
      <td data-label="Projects covered">{formatCount(source.projects)}</td>
      <td data-label="Operations stored">{formatCount(source.operations)}</td>
      <td data-label="State">
        <span className={`tag tag--plain source-state source-state--${source.state}`}>{state.label}</span> <span className="muted small">{state.detail}</span>
      </td>
      <td data-label="Last successful read">
        {source.lastReadAt ? <RelativeTime iso={source.lastReadAt} now={now} /> : <span className="muted">Not yet</span>}
      </td>
      <td data-label="Last error">{source.lastError ?? <span className="muted">None</span>}</td>
      <td className="cell--actions">
        {source.isOwnKey ? (
          <button type="button" className="danger" aria-describedby={labelId} onClick={(e) => onRemove(source, e.currentTarget)}>
            Remove
          </button>
        ) : (
          <span className="muted small">Kept with another key</span>
        )}
      </td>
    </tr>
  );
}

/** The kept keys: a real table, one source a row, its label as the row header. */
export function SourcesTable({ sources, now, onRemove }: SourcesTableProps) {
  return (
    <div className="table-wrap">
      <table className="data-table data-table--wrap sources-table">
        <caption className="visually-hidden">Keys the archive reads with</caption>
        <TableHead
          columns={SOURCE_COLUMNS}
          extra={
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          }
        />
        <tbody>
          {sources.map((source) => (
            <SourceRow key={source.id} source={source} now={now} onRemove={onRemove} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
