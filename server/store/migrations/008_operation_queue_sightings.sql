-- The queue (docs/insights.md): when the collector first saw an operation waiting and first saw it running, kept on
-- the operation itself. upsertOperations (server/store/operations.ts) sets each the first time it records that
-- status, in the statement that records the transition; the insights read them with the other figures from the
-- window's index rather than gathering them from operation_transitions (docs/benchmarks.md, "The whole record at scale").
ALTER TABLE operations ADD COLUMN waiting_seen_at timestamptz, ADD COLUMN running_seen_at timestamptz;
-- 006's index of a window's figures is made again below with the two sightings: not kept up while they are filled.
DROP INDEX operations_window;

-- Rows kept before: from the transitions recorded so far. The two statuses are QUEUE_STATUSES
-- (src/features/history/insights/insight-figures.ts), set for the migrations' transaction by migrate()
-- (server/store/migrations.ts): a migration's SQL takes no parameters, and writes no status of its own.
UPDATE operations o SET waiting_seen_at = q.waiting_at, running_seen_at = q.running_at
FROM (
  SELECT project_id, operation_id, min(seen_at) FILTER (WHERE status = current_setting('ops_console.queue_waiting')) AS waiting_at,
    min(seen_at) FILTER (WHERE status = current_setting('ops_console.queue_running')) AS running_at
  FROM operation_transitions WHERE status IN (current_setting('ops_console.queue_waiting'), current_setting('ops_console.queue_running'))
  GROUP BY project_id, operation_id
) q
WHERE o.project_id = q.project_id AND o.id = q.operation_id;

-- The queue is read from the window's index with the other figures.
CREATE INDEX operations_window ON operations (project_id, created_at)
  INCLUDE (action, status, total_duration_ms, failures_count, id, waiting_seen_at, running_seen_at);

-- 006's index of the queue's transitions: nothing reads the transitions by status any more.
DROP INDEX operation_transitions_queue;
