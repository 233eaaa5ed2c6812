import { useInfiniteQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { historyOperations, operationQueries } from '../../../api/operations';
import { usualDurations, type UsualDuration } from '../../../model/usual-durations';

/**
 * The usual duration of each action in a project, over its history as loaded (walked) so far: the
 * one history store, its first page loaded here if no screen has loaded it yet and `load` allows
 * (an operation's page loads it only while the operation is under way: only then can it run long).
 */
export function useUsualDurations(projectId: string, load = true): ReadonlyMap<string, UsualDuration> {
  const history = useInfiniteQuery({ ...operationQueries.history(projectId), enabled: load });
  return useMemo(() => usualDurations(historyOperations(history.data)), [history.data]);
}
