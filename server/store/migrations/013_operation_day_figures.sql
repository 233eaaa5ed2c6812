-- Per-day figures (docs/insights.md, "Per-day figures"): what the insights count of a project's operations, kept per
-- UTC day of creation, action and status as the collector records them, so that a window's whole days are read as a
-- few rows per day rather than as every operation. The status is kept as the API gave it: which statuses a figure
-- counts (failed, cancelled, finished) stays the history's filters' (src/model/insight-figures.ts), applied when read.
-- upsertOperations (server/store/operations.ts) moves an operation's share in the statement that records it;
-- `npm run store:rebuild-figures` makes both tables again from the operations with the fill below.

-- A duration's bucket: 2 % wide on a log scale, so the geometric middle of its bucket is within 1 % of a value.
-- -32768: no duration; -32767: zero (or less).
CREATE FUNCTION figure_bucket(ms double precision) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN ms IS NULL THEN -32768 WHEN ms <= 0 THEN -32767 ELSE greatest(-32766, floor(ln(ms) / ln(1.02)))::integer END $$;
-- The value a bucket stands for: its geometric middle (null for no duration).
CREATE FUNCTION figure_bucket_ms(bucket integer) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN bucket = -32768 THEN NULL WHEN bucket = -32767 THEN 0 ELSE exp((bucket + 0.5) * ln(1.02)) END $$;

-- Runs, retried (failures_count above 0) and the durations, per project, day, action, status and duration bucket.
CREATE TABLE operation_day_figures (
  project_id text NOT NULL,
  day date NOT NULL,
  action text NOT NULL,
  status text NOT NULL,
  duration_bucket integer NOT NULL,
  runs integer NOT NULL,
  retried integer NOT NULL,
  -- The sums in the key's index too: a window's days are read from the index alone (an index-only scan, once vacuumed),
  -- not from rows scattered over the table (ten million operations: 94,000 pages read for one project's 180 days).
  PRIMARY KEY (project_id, day, action, status, duration_bucket) INCLUDE (runs, retried)
);

-- The queue (first seen waiting to first seen running, migration 008) of the operations seen queued, per bucket.
CREATE TABLE operation_day_queues (
  project_id text NOT NULL,
  day date NOT NULL,
  action text NOT NULL,
  queue_bucket integer NOT NULL,
  queued integer NOT NULL,
  PRIMARY KEY (project_id, day, action, queue_bucket) INCLUDE (queued)
);

-- How many operations a project holds per action and status, whatever their day: the count a page of the history is
-- out of when it is filtered by status and action alone (server/store/operations.ts, matchCount).
CREATE TABLE operation_counts (
  project_id text NOT NULL,
  action text NOT NULL,
  status text NOT NULL,
  operations integer NOT NULL,
  PRIMARY KEY (project_id, action, status) INCLUDE (operations)
);

-- The operations kept before: the same fill as the rebuild command's (server/store/day-figures.ts).
INSERT INTO operation_day_figures (project_id, day, action, status, duration_bucket, runs, retried)
SELECT project_id, (created_at AT TIME ZONE 'UTC')::date, action, status, figure_bucket(total_duration_ms), count(*), count(*) FILTER (WHERE failures_count > 0)
FROM operations GROUP BY 1, 2, 3, 4, 5;
INSERT INTO operation_day_queues (project_id, day, action, queue_bucket, queued)
SELECT project_id, (created_at AT TIME ZONE 'UTC')::date, action, figure_bucket(extract(epoch FROM running_seen_at - waiting_seen_at)::float8 * 1000), count(*)
FROM operations WHERE running_seen_at >= waiting_seen_at GROUP BY 1, 2, 3, 4;
INSERT INTO operation_counts (project_id, action, status, operations)
SELECT project_id, action, status, count(*) FROM operations GROUP BY 1, 2, 3;
