-- The archive (docs/archive.md): the kept keys, the projects each reaches, every operation seen, every status change.

-- A kept key: sealed (AES-256-GCM, server/session/seal.ts), never stored in the clear; the keyed
-- fingerprint keeps one source per key and lets a session tell its own.
CREATE TABLE archive_sources (
  id text PRIMARY KEY,
  key_fingerprint text NOT NULL UNIQUE,
  sealed_key text NOT NULL,
  key_kind text NOT NULL,
  label text NOT NULL,
  created_at timestamptz NOT NULL,
  last_read_at timestamptz,
  last_error text,
  last_error_at timestamptz,
  disabled_at timestamptz
);

-- The projects a source reaches (the projects list as its key sees it).
CREATE TABLE archive_projects (
  source_id text NOT NULL REFERENCES archive_sources (id) ON DELETE CASCADE,
  project_id text NOT NULL,
  name text NOT NULL,
  org_name text,
  backfilled boolean NOT NULL DEFAULT false,
  last_read_at timestamptz,
  -- When the whole history was last read to its end (what was not listed then is gone).
  last_full_read_at timestamptz,
  PRIMARY KEY (source_id, project_id)
);
CREATE INDEX archive_projects_project ON archive_projects (project_id);

-- One row per operation; the column names are the filter fields' SQL form (src/model/filter-fields.ts).
CREATE TABLE operations (
  project_id text NOT NULL,
  id text NOT NULL,
  action text NOT NULL,
  status text NOT NULL,
  branch_id text,
  endpoint_id text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  body jsonb NOT NULL,
  first_seen_at timestamptz NOT NULL,
  last_listed_at timestamptz NOT NULL,
  -- Null while the API still lists it; kept, never deleted, once it does not.
  gone_at timestamptz,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX operations_newest ON operations (project_id, created_at DESC, id DESC);
CREATE INDEX operations_by_status ON operations (project_id, status, created_at DESC, id DESC);

-- Every status change the collector saw (the notifications read the rows after their cursor).
CREATE TABLE operation_transitions (
  seq bigserial PRIMARY KEY,
  project_id text NOT NULL,
  operation_id text NOT NULL,
  status text NOT NULL,
  previous_status text,
  seen_at timestamptz NOT NULL,
  during_backfill boolean NOT NULL,
  operation jsonb NOT NULL
);
CREATE INDEX operation_transitions_operation ON operation_transitions (project_id, operation_id, seq);

-- Signed-out sessions, refused on every instance until they would have expired anyway.
CREATE TABLE revoked_sessions (
  sid text PRIMARY KEY,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX revoked_sessions_revoked ON revoked_sessions (revoked_at);
