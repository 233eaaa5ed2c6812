import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { activityQueries, nextStepDelay, type ActivityFeed } from '../../api/activity-feed';
import { DEFAULT_BUDGET_PER_MINUTE } from '../../lib/activity-scheduler';
import { useSharedPoll } from '../../lib/poll-sharing/use-shared-polls';
import { usePollInterval } from '../../lib/use-poll-interval';
import { useStoredNumber } from '../../lib/use-stored-state';

const BUDGET_STORAGE_KEY = 'ops-console.activity-budget-per-minute';

/**
 * The activity feed, stepped by its scheduler: each fetch of the feed query is one request the
 * scheduler chose, and the next fetch is timed by it. One tab (the poll-sharing layer's owner of the
 * key) runs the steps and hands each feed to the others; a hidden tab runs none. The budget is the
 * person's choice, kept across visits; the poll interval is the one every live screen shares.
 */
export function useActivityFeed() {
  const [budgetPerMinute, setBudget] = useStoredNumber(BUDGET_STORAGE_KEY, DEFAULT_BUDGET_PER_MINUTE);
  const [intervalMs, setIntervalMs] = usePollInterval();
  const settings = useMemo(() => ({ budgetPerMinute, intervalMs }), [budgetPerMinute, intervalMs]);
  const options = activityQueries.feed(settings);
  const refetchInterval = useSharedPoll<ActivityFeed, Error>({
    queryKey: options.queryKey,
    delay: (state) => nextStepDelay(state.data, settings, Date.now()),
  });
  const feed = useQuery({ ...options, refetchInterval });
  return { feed, settings, setBudget, setIntervalMs };
}
