import { useInfiniteQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { historyOperations, operationQueries } from '../../api/operations';
import { usualDurations, type UsualDuration } from '../../lib/usual-durations';

/**
 * The usual duration of each action in a project, over its history as loaded (walked) so far: the
 * one history store, its first page loaded here if no screen has loaded it yet.
 */
export function useUsualDurations(projectId: string): ReadonlyMap<string, UsualDuration> {
  const history = useInfiniteQuery(operationQueries.history(projectId));
  return useMemo(() => usualDurations(historyOperations(history.data)), [history.data]);
}
