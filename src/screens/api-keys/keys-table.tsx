import type { ApiKey } from '../../api/schemas';
import { LongName } from '../../components/long-name';
import { RelativeTime } from '../../components/relative-time';
import { TableHead } from '../../components/table-head';

export const PERSONAL_KEY_COLUMNS = ['Name', 'ID', 'Created', 'Created by', 'Last used', 'Last used from'] as const;
export const ORGANIZATION_KEY_COLUMNS = ['Name', 'ID', 'Scope', 'Created', 'Created by', 'Last used', 'Last used from'] as const;

interface KeysTableProps {
  caption: string;
  keys: readonly ApiKey[];
  /** Organization lists: a Scope column marks project-scoped keys with their project. */
  projectNames?: ReadonlyMap<string, string> | undefined;
  /** Absent when the signed-in key may not revoke these keys: then no Revoke button is offered. */
  onRevoke?: ((key: ApiKey, trigger: HTMLElement) => void) | undefined;
  now: number;
}

function ScopeCell({ projectId, projectNames }: { projectId: string | undefined; projectNames: ReadonlyMap<string, string> }) {
  if (projectId === undefined) return <>Whole organization</>;
  const name = projectNames.get(projectId);
  return (
    <span className="key-scope">
      <span className="tag tag--project">Project</span> {name ?? <code>{projectId}</code>}
      {name !== undefined && (
        <span className="muted">
          {' '}
          (<code>{projectId}</code>)
        </span>
      )}
    </span>
  );
}

/** One owner's keys: a real table, the name as the row header, newest last as the API lists them. */
export function KeysTable({ caption, keys, projectNames, onRevoke, now }: KeysTableProps) {
  const columns = projectNames ? ORGANIZATION_KEY_COLUMNS : PERSONAL_KEY_COLUMNS;
  return (
    <div className="table-wrap">
      <table className="data-table data-table--wrap keys-table">
        <caption className="visually-hidden">{caption}</caption>
        <TableHead
          columns={columns}
          extra={
            onRevoke && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )
          }
        />
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <th scope="row" data-label="Name">
                <LongName name={key.name} />
              </th>
              <td data-label="ID">
                <code>{key.id}</code>
              </td>
              {projectNames && (
                <td data-label="Scope">
                  <ScopeCell projectId={key.project_id} projectNames={projectNames} />
                </td>
              )}
              <td data-label="Created">
                <RelativeTime iso={key.created_at} now={now} />
              </td>
              <td data-label="Created by">{key.created_by.name || <code>{key.created_by.id}</code>}</td>
              <td data-label="Last used">{key.last_used_at ? <RelativeTime iso={key.last_used_at} now={now} /> : <span className="muted">Never</span>}</td>
              <td data-label="Last used from">{key.last_used_from_addr || <span className="muted">—</span>}</td>
              {onRevoke && (
                <td className="keys-table__actions cell--actions">
                  <button type="button" className="danger" aria-label={`Revoke key ${key.name}`} onClick={(e) => onRevoke(key, e.currentTarget)}>
                    Revoke
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
