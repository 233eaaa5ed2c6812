-- Per-day figures per project alone (docs/insights.md, "Per-day figures"): the sums of operation_day_figures and
-- operation_day_queues over their actions. What reads a project as a whole (`/insights`, a row per project, and the
-- chart of a project's operations per day) reads a fifth of the rows the action's key makes it read: the busiest
-- project of ten million operations has 70,000 of them in 180 days where it has 341,000 by action. Kept by
-- upsertOperations with the others, in the same statement; `npm run store:rebuild-figures` makes them again.

CREATE TABLE operation_day_project_figures (
  project_id text NOT NULL,
  day date NOT NULL,
  status text NOT NULL,
  duration_bucket integer NOT NULL,
  runs integer NOT NULL,
  retried integer NOT NULL,
  PRIMARY KEY (project_id, day, status, duration_bucket) INCLUDE (runs, retried)
);

CREATE TABLE operation_day_project_queues (
  project_id text NOT NULL,
  day date NOT NULL,
  queue_bucket integer NOT NULL,
  queued integer NOT NULL,
  PRIMARY KEY (project_id, day, queue_bucket) INCLUDE (queued)
);

-- The figures kept before: their sums over the actions (the rebuild command's fill, server/store/day-figures.ts).
INSERT INTO operation_day_project_figures (project_id, day, status, duration_bucket, runs, retried)
SELECT project_id, day, status, duration_bucket, sum(runs), sum(retried) FROM operation_day_figures
GROUP BY 1, 2, 3, 4 HAVING sum(runs) <> 0 OR sum(retried) <> 0;
INSERT INTO operation_day_project_queues (project_id, day, queue_bucket, queued)
SELECT project_id, day, queue_bucket, sum(queued) FROM operation_day_queues GROUP BY 1, 2, 3 HAVING sum(queued) <> 0;
