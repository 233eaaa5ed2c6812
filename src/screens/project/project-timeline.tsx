import { useInfiniteQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { historyOperations, operationQueries } from '../../api/operations';
import type { Operation } from '../../api/schemas';
import { filterOperations, isFiltered, type HistoryFilters } from '../../model/filters';
import { TimelineFigure } from '../../features/history/timeline/timeline-figure';

interface ProjectTimelineProps {
  projectId: string;
  filters: HistoryFilters;
  /** What matches when the archive answered the filters; otherwise the loaded history is filtered here. */
  matches?: readonly Operation[] | undefined;
  /** The archive is asked for the matches: nothing is drawn from the loaded history meanwhile. */
  pending?: boolean | undefined;
  branchNames: ReadonlyMap<string, string>;
  computeNames: ReadonlyMap<string, string>;
}

/** The timeline of a project's history as loaded (the one store), showing what matches the filters; loaded on demand. */
export function ProjectTimeline({ projectId, filters, matches: answered, pending, branchNames, computeNames }: ProjectTimelineProps) {
  const history = useInfiniteQuery(operationQueries.history(projectId));
  const matches = useMemo(() => answered ?? filterOperations(historyOperations(history.data), filters), [answered, history.data, filters]);
  return (
    <TimelineFigure
      projectId={projectId}
      operations={matches}
      branchNames={branchNames}
      computeNames={computeNames}
      from={filters.from}
      to={filters.to}
      filtered={isFiltered(filters)}
      pending={pending}
    />
  );
}
