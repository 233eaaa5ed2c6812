import { useQuery } from '@tanstack/react-query';
import { startersQuery } from '../../api/audit-starters';
import { useTeamRole } from './use-team-role';

// "Started by <name>" (docs/team.md): an operation started through the console names who started it, from the
// audit trail's record of the operation ids each change started. Operations started elsewhere say nothing, never a
// guess; with a key (no team sign-in) nothing is asked.

/** How many of the newest operations one read asks about. */
export const STARTERS_PER_READ = 100;

/** Who started each of `operationIds` through the console, by id (empty until known, and with a key). */
export function useStarters(operationIds: readonly string[]): Readonly<Record<string, { name: string; email: string }>> {
  const { person } = useTeamRole();
  const ids = person ? operationIds.slice(0, STARTERS_PER_READ) : [];
  const starters = useQuery({ ...startersQuery(ids), enabled: ids.length > 0 });
  return starters.data ?? {};
}

export function StartedBy({ name }: { name: string | undefined }) {
  if (name === undefined) return null;
  return <span className="muted small started-by">Started by {name}</span>;
}
