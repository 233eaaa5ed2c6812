-- When the platform will retry a failed operation (the API's retry_at), as a column: the in-flight rule's SQL
-- form (src/lib/operation-status.ts, inFlightSql) reads it beside status and updated_at. Null when not given.
ALTER TABLE operations ADD COLUMN retry_at timestamptz;

-- Rows kept before this column: filled from the object the API gave, when its retry_at is an RFC 3339 time
-- with its zone (the API's form; not Postgres' words such as 'now' or 'infinity') that Postgres reads. One
-- shaped like a time but not one (2026-02-30) stays null rather than failing the migration.
DO $$
DECLARE
  kept record;
BEGIN
  FOR kept IN
    SELECT project_id, id, body->>'retry_at' AS retry_at FROM operations
    WHERE body->>'retry_at' ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'
  LOOP
    BEGIN
      UPDATE operations SET retry_at = kept.retry_at::timestamptz WHERE project_id = kept.project_id AND id = kept.id;
    EXCEPTION WHEN data_exception THEN
      NULL;
    END;
  END LOOP;
END $$;
