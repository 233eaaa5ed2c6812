-- The platform's created_at has whole seconds while its list is ordered (and paged) to the microsecond, and
-- operations often share a second (a branch's create_branch and start_compute). `rank` keeps the order the API
-- listed a second's operations in: within one project and one created_at, a larger rank is newer
-- (server/store/operations.ts, upsertOperations writes it; operationsPage orders by it). Rows kept before this
-- column share rank 0 and fall back to their id until the collector lists them again.
ALTER TABLE operations ADD COLUMN rank integer NOT NULL DEFAULT 0;

-- The pages' order, so a page of the history is still one index range.
DROP INDEX operations_newest;
CREATE INDEX operations_newest ON operations (project_id, created_at DESC, rank DESC, id DESC);
DROP INDEX operations_by_status;
CREATE INDEX operations_by_status ON operations (project_id, status, created_at DESC, rank DESC, id DESC);
