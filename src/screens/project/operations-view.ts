import type { Operation } from '../../api/schemas';

/** A project's loaded operations with the names to show for their branches and computes: what the table shows and the export writes. */
export interface OperationsView {
  projectId: string;
  projectName: string | undefined;
  operations: readonly Operation[];
  branchNames: ReadonlyMap<string, string>;
  computeNames: ReadonlyMap<string, string>;
}
