-- The insights' sums over a whole record (docs/benchmarks.md, "The whole record at scale"): a million operations,
-- a 90-day window and the one before it read as index entries rather than as rows, each of which carries the
-- API's object. With the visibility map a vacuumed Postgres keeps, both are read from the index alone.

-- Every column the figures and the chart read of an operation created in a range (server/store/insights.ts),
-- in the order they are grouped by: the project, then its creation time.
CREATE INDEX operations_window ON operations (project_id, created_at) INCLUDE (action, status, total_duration_ms, failures_count, id);

-- The queue's transitions (first seen scheduling, first seen running) with the operation each is of: the one of
-- 004 with the operation id added, which it replaces.
CREATE INDEX operation_transitions_queue ON operation_transitions (project_id, status, seen_at) INCLUDE (operation_id);
DROP INDEX operation_transitions_status;
