-- The audit trail of team sign-in (docs/team.md, "The audit trail"): one row per change made through the console
-- and per refusal, append-only for the console (nothing but the retention's upkeep deletes a row). The operation
-- ids a change started say who started them ("Started by"). Times come from the server's clock as parameters.

CREATE TABLE audit_trail (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL,
  email text NOT NULL,
  name text NOT NULL,
  role text,
  action text NOT NULL,
  project_id text,
  target text NOT NULL,
  status integer NOT NULL,
  request_id text,
  operation_ids text[] NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_trail_at ON audit_trail (at DESC, id DESC);
CREATE INDEX audit_trail_operations ON audit_trail USING gin (operation_ids);
