-- The change feed and what is watched (docs/live.md).
--
-- live_changes: each status change the collector records, in the transaction that records it, numbered by
-- `seq`. Writers take a transaction-level advisory lock before they number a change, so rows commit in `seq`
-- order and a reader may read "after N" (a cursor never skips a row that commits later). Pruned by age.
CREATE TABLE live_changes (
  seq bigserial PRIMARY KEY,
  project_id text NOT NULL,
  operation_id text NOT NULL,
  status text NOT NULL,
  operation jsonb NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX live_changes_at ON live_changes (at);

-- live_watches: what a page has open (an operation, or a project's newest operations), with the key of a
-- session that may read it (sealed), until `until`. The instance that leads the collector reads these.
CREATE TABLE live_watches (
  project_id text NOT NULL,
  -- '' : the project's newest operations (a history with work in flight, Activity).
  operation_id text NOT NULL DEFAULT '',
  key_fingerprint text NOT NULL,
  sealed_key text NOT NULL,
  until timestamptz NOT NULL,
  PRIMARY KEY (project_id, operation_id, key_fingerprint)
);
CREATE INDEX live_watches_until ON live_watches (until);
