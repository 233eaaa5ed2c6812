-- Per-month figures per project (docs/insights.md, "Per-day figures"): the sums of operation_day_project_figures and
-- operation_day_project_queues over each UTC month. A window's whole months are read from here and only the days
-- around them from the per-day figures: a big project's month sums to some ninth of its days' rows (the three
-- busiest of ten million operations: 116,678 rows by month against 1,100,531 by day), and `/insights` over 180 days
-- reads four whole months of them (docs/benchmarks.md, "Ten million operations: per-day figures"). Kept by
-- upsertOperations with the others, in the same statement; `npm run store:rebuild-figures` makes them again.

CREATE TABLE operation_month_project_figures (
  project_id text NOT NULL,
  -- The month's first day (UTC).
  month date NOT NULL,
  status text NOT NULL,
  duration_bucket integer NOT NULL,
  runs integer NOT NULL,
  retried integer NOT NULL,
  PRIMARY KEY (project_id, month, status, duration_bucket) INCLUDE (runs, retried)
);

CREATE TABLE operation_month_project_queues (
  project_id text NOT NULL,
  month date NOT NULL,
  queue_bucket integer NOT NULL,
  queued integer NOT NULL,
  PRIMARY KEY (project_id, month, queue_bucket) INCLUDE (queued)
);

-- The figures kept before: their sums over the months (the rebuild command's fill, server/store/day-figures.ts).
INSERT INTO operation_month_project_figures (project_id, month, status, duration_bucket, runs, retried)
SELECT project_id, date_trunc('month', day::timestamp)::date, status, duration_bucket, sum(runs), sum(retried) FROM operation_day_project_figures
GROUP BY 1, 2, 3, 4 HAVING sum(runs) <> 0 OR sum(retried) <> 0;
INSERT INTO operation_month_project_queues (project_id, month, queue_bucket, queued)
SELECT project_id, date_trunc('month', day::timestamp)::date, queue_bucket, sum(queued) FROM operation_day_project_queues GROUP BY 1, 2, 3 HAVING sum(queued) <> 0;
