-- How many operations each project holds (docs/insights.md, "How a read is cut"): the sums of operation_counts over
-- its actions and statuses. A read of every project's insights decides from them which projects are read from the
-- per-day figures and how the rest are grouped, before any other statement starts: from operation_counts that was a
-- scan of some 120 rows a project (ten million operations: 120,000 rows, 25-37 ms), from here a row a project.
-- Kept by upsertOperations with the others, in the same statement (an operation's status changing moves nothing
-- here); `npm run store:rebuild-figures` makes it again.
CREATE TABLE operation_project_counts (
  project_id text PRIMARY KEY,
  operations integer NOT NULL
);

-- The operations kept before: the rebuild command's fill (server/store/day-figures.ts).
INSERT INTO operation_project_counts (project_id, operations)
SELECT project_id, sum(operations) FROM operation_counts GROUP BY 1 HAVING sum(operations) <> 0;
