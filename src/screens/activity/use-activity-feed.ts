import { hashKey, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { activityQueries, nextStepDelay, type ActivityFeed } from '../../api/activity-feed';
import { archiveActivityRefetchInterval, archiveQueries, ownKeyFollowed } from '../../api/archive';
import { slowPollDelay } from '../../api/retry-policy';
import { DEFAULT_BUDGET_PER_MINUTE } from '../../lib/activity-scheduler';
import { useShownInline } from '../../lib/inline-faults';
import { useSharedPoll } from '../../lib/poll-sharing/use-shared-polls';
import { usePollInterval } from '../../api/use-poll-interval';
import { useStoredNumber } from '../../lib/use-stored-state';

const BUDGET_STORAGE_KEY = 'ops-console.activity-budget-per-minute';

/** A query that has answered, or failed once (then the view goes on without it rather than wait). */
const settled = (query: { isSuccess: boolean; isError: boolean; failureCount: number }) => query.isSuccess || query.isError || query.failureCount > 0;

/**
 * The activity feed, stepped by its scheduler: each fetch of the feed query is one request the
 * scheduler chose, and the next fetch is timed by it. One tab (the poll-sharing layer's owner of the
 * key) runs the steps and hands each feed to the others; a hidden tab runs none. The budget is the
 * person's choice, kept across visits; the poll interval is the one every live screen shares.
 *
 * The history archive answers for the projects it covers (GET /archive/activity, polled at the interval,
 * no API budget spent): the scheduler reads only the others, and starts once the archive has said which
 * those are. When the session's own key is kept and followed, the archive holds every project the key
 * reaches, so the view sends no API request at all (not even the project list).
 */
export function useActivityFeed() {
  const [budgetPerMinute, setBudget] = useStoredNumber(BUDGET_STORAGE_KEY, DEFAULT_BUDGET_PER_MINUTE);
  const [intervalMs, setIntervalMs] = usePollInterval();
  const archive = useQuery({ ...archiveQueries.activity(), refetchInterval: archiveActivityRefetchInterval(intervalMs) });
  // Whether the session's own key is kept changes rarely: checked at the slow pace.
  const sources = useQuery({ ...archiveQueries.sources(), refetchInterval: archiveActivityRefetchInterval(slowPollDelay(intervalMs)) });
  const coveredIds = archive.data?.projects.map((p) => p.id).join(' ') ?? '';
  const covered = useMemo(() => new Set(coveredIds.split(' ').filter(Boolean)), [coveredIds]);
  const coversAll = archive.isSuccess && ownKeyFollowed(sources.data);
  const ready = settled(archive) && settled(sources);

  const settings = useMemo(() => ({ budgetPerMinute, intervalMs, covered }), [budgetPerMinute, intervalMs, covered]);
  const options = activityQueries.feed(settings);
  const refetchInterval = useSharedPoll<ActivityFeed, Error>({
    queryKey: options.queryKey,
    delay: (state) => nextStepDelay(state.data, settings, Date.now()),
    // The feed also finds new projects and operations the server does not follow: it goes on while the stream is up (docs/live.md).
    whileLive: 'keep',
  });
  const feed = useQuery({ ...options, refetchInterval, enabled: ready && !coversAll });
  // The archive (the console's store) failing is said once, inline (ArchiveDown), never as a page-wide "Could not load".
  const archiveProblem = archive.data === undefined && (archive.isError || archive.failureCount > 0) ? (archive.error ?? archive.failureReason) : null;
  const sourcesFailing = sources.data === undefined && (sources.isError || sources.failureCount > 0);
  useShownInline(archiveProblem !== null ? hashKey(archiveQueries.activity().queryKey) : undefined);
  useShownInline(sourcesFailing ? hashKey(archiveQueries.sources().queryKey) : undefined);
  return {
    feed,
    archive,
    archiveProblem: archiveProblem ?? (sourcesFailing ? (sources.error ?? sources.failureReason) : null),
    coversAll,
    settings,
    setBudget,
    setIntervalMs,
  };
}
