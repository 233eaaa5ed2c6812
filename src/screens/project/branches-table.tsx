import { refusedProps } from '../../features/session/refusal-note';
import type { Branch, Endpoint, Operation } from '../../api/schemas';
import { LongName } from '../../components/long-name';
import { TableHead } from '../../components/table-head';
import { computeStateOf, type ComputeState } from '../../model/operation-status';

export const BRANCH_COLUMNS = ['Branch', 'Parent', 'Compute', 'Compute state', 'Actions'] as const;

export const computeNameOf = (endpoint: Endpoint) => endpoint.name ?? endpoint.id;

const STATES: Record<string, string> = { active: 'Active', idle: 'Idle', init: 'Creating' };
const PENDING: Record<string, string> = { active: 'Starting…', idle: 'Suspending…' };

/** "Active", "Idle", "Starting…": the compute's state, or where the operation running now takes it (model/operation-status.ts). */
function stateLabel(state: ComputeState, endpoint: Endpoint): string {
  if (state.kind === 'moving') return PENDING[state.to] ?? `${endpoint.current_state} → ${state.to}`;
  return STATES[state.state] ?? state.state;
}

interface BranchesTableProps {
  branches: readonly Branch[];
  endpoints: readonly Endpoint[];
  /** A compute request is on its way: no second one meanwhile. */
  busy: boolean;
  /** The project's operations as last seen (the history's and the watched ones' newest copies): which half of a restart runs now. */
  operations?: readonly Operation[];
  now: number;
  onStart: (endpoint: Endpoint) => void;
  onSuspend: (endpoint: Endpoint) => void;
  onRestart: (endpoint: Endpoint) => void;
  onDelete: (branch: Branch) => void;
  /** Why the person may not use each control (team sign-in), and the note that says it (branches-section.tsx). */
  refused: BranchRefusals;
  refusalNoteId: string;
}

/** The reasons the branches' controls are beyond the person's role, undefined where they may use them. */
export interface BranchRefusals {
  create: string | undefined;
  start: string | undefined;
  suspend: string | undefined;
  restart: string | undefined;
  delete: string | undefined;
}

interface Row {
  branch: Branch;
  endpoint: Endpoint | undefined;
  /** The branch's first row carries its own action (Delete). */
  first: boolean;
}

/** One row per compute (a branch without one gets one row): the default branch first, then oldest first. */
function rowsOf(branches: readonly Branch[], endpoints: readonly Endpoint[]): Row[] {
  const sorted = [...branches].sort((a, b) => Number(b.default) - Number(a.default) || a.created_at.localeCompare(b.created_at));
  return sorted.flatMap((branch): Row[] => {
    const computes = endpoints.filter((e) => e.branch_id === branch.id);
    if (computes.length === 0) return [{ branch, endpoint: undefined, first: true }];
    return computes.map((endpoint, i) => ({ branch, endpoint, first: i === 0 }));
  });
}

/** Branches and their computes: a real table with each row's actions named after what they act on. */
export function BranchesTable(props: BranchesTableProps) {
  const { branches, endpoints, busy, operations = [], now, onStart, onSuspend, onRestart, onDelete, refused, refusalNoteId } = props;
  // Team sign-in: a control beyond the person's role is disabled, its reason in the section's note (docs/team.md).
  const described = (reason: string | undefined, className?: string) => refusedProps(refusalNoteId, reason, className);
  const computeOperations = operations.filter((op) => op.endpoint_id !== undefined && (op.action === 'start_compute' || op.action === 'suspend_compute'));
  const names = new Map(branches.map((b) => [b.id, b.name]));
  const hasChildren = new Set(branches.flatMap((b) => (b.parent_id ? [b.parent_id] : [])));
  return (
    <div className="table-wrap">
      <table className="data-table branches-table">
        <caption className="visually-hidden">Branches and computes</caption>
        <TableHead columns={BRANCH_COLUMNS} />
        <tbody>
          {rowsOf(branches, endpoints).map(({ branch, endpoint, first }) => {
            const compute = endpoint ? computeNameOf(endpoint) : undefined;
            const state = endpoint ? computeStateOf(endpoint, computeOperations, now) : undefined;
            const settled = state?.kind === 'settled' && state.state !== 'init';
            const active = state?.kind === 'settled' && state.state === 'active';
            return (
              <tr key={endpoint?.id ?? branch.id}>
                <th scope="row" data-label="Branch">
                  <LongName name={branch.name} />
                  {branch.default && <span className="tag tag--plain"> default</span>}
                  {branch.current_state !== 'ready' && <span className="muted"> ({branch.current_state === 'init' ? 'creating' : branch.current_state})</span>}
                </th>
                <td data-label="Parent">{branch.parent_id ? <LongName name={names.get(branch.parent_id) ?? branch.parent_id} /> : '—'}</td>
                <td data-label="Compute">
                  {endpoint ? (
                    <>
                      <code className="truncate" title={compute}>
                        {compute}
                      </code>
                      {endpoint.type === 'read_only' && <span className="muted"> (read-only)</span>}
                    </>
                  ) : (
                    <span className="muted">No compute</span>
                  )}
                </td>
                <td data-label="Compute state">{endpoint && state ? stateLabel(state, endpoint) : '—'}</td>
                <td className="branches-table__actions cell--actions">
                  {endpoint && (
                    <>
                      <button
                        type="button"
                        disabled={busy || !settled || active || refused.start !== undefined}
                        aria-label={`Start compute ${compute}`}
                        {...described(refused.start)}
                        onClick={() => onStart(endpoint)}
                      >
                        Start
                      </button>
                      <button
                        type="button"
                        disabled={busy || !settled || !active || refused.suspend !== undefined}
                        aria-label={`Suspend compute ${compute}`}
                        {...described(refused.suspend)}
                        onClick={() => onSuspend(endpoint)}
                      >
                        Suspend
                      </button>
                      <button
                        type="button"
                        disabled={busy || !settled || refused.restart !== undefined}
                        aria-label={`Restart compute ${compute}`}
                        {...described(refused.restart)}
                        onClick={() => onRestart(endpoint)}
                      >
                        Restart
                      </button>
                    </>
                  )}
                  {first &&
                    (branch.default ? null : hasChildren.has(branch.id) ? (
                      <span className="muted small">Has child branches</span>
                    ) : (
                      <button
                        type="button"
                        aria-label={`Delete branch ${branch.name}`}
                        disabled={refused.delete !== undefined}
                        {...described(refused.delete, 'danger')}
                        onClick={() => onDelete(branch)}
                      >
                        Delete
                      </button>
                    ))}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
