import type { Operation } from '../../api/schemas';

/** What the branches section hands to each action: where the project stands and where results go. */
export interface ActionContext {
  projectId: string;
  /** The project's unfinished operations, as last fetched: named when a request meets 423. */
  blockers: readonly Operation[];
  /** Puts the operations one request started on the watch list, grouped under `title`. */
  watchStarted: (
    title: string,
    operations: readonly Operation[],
    names?: { branches?: ReadonlyMap<string, string>; computes?: ReadonlyMap<string, string> },
  ) => void;
  /** The request went through: close, and leave this line in the section's status (until the operations it started have ended). */
  onDone: (message: string, started?: readonly Operation[]) => void;
}

/** "1 operation", "2 operations". */
export function countOperations(count: number): string {
  return `${count} ${count === 1 ? 'operation' : 'operations'}`;
}
