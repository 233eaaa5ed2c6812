-- Notifications (docs/notifications.md): webhooks with their rule, operation watches ("Notify me when it ends"),
-- the outbox of deliveries (one row per webhook and event: at least once, never queued twice), and the
-- dispatcher's place in operation_transitions. Times come from the server's clock as parameters.

CREATE TABLE notify_webhooks (
  id text PRIMARY KEY,
  -- Who sees and owns it: the fingerprint of the key that made it (server/session/session-crypto.ts).
  owner_fingerprint text NOT NULL,
  -- That key, sealed: deliveries go only about projects it can still read.
  owner_key_sealed text NOT NULL,
  url text NOT NULL,
  format text NOT NULL,
  scope_kind text NOT NULL,
  scope_id text,
  events text[] NOT NULL,
  secret_sealed text NOT NULL,
  paused_reason text,
  consecutive_failures integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL
);
CREATE INDEX notify_webhooks_owner ON notify_webhooks (owner_fingerprint);

CREATE TABLE notify_watches (
  owner_fingerprint text NOT NULL,
  project_id text NOT NULL,
  operation_id text NOT NULL,
  created_at timestamptz NOT NULL,
  ended_at timestamptz,
  PRIMARY KEY (owner_fingerprint, operation_id)
);
CREATE INDEX notify_watches_open ON notify_watches (operation_id) WHERE ended_at IS NULL;

CREATE TABLE notify_deliveries (
  id bigserial PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES notify_webhooks (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  type text NOT NULL,
  project_id text NOT NULL,
  operation_id text NOT NULL,
  occurred_at timestamptz NOT NULL,
  operation jsonb NOT NULL,
  -- pending, delivered, failed (for good), withheld (the owner's key cannot read the project, or outside the scope)
  state text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  lease_until timestamptz,
  last_status integer,
  last_answer text,
  last_attempt_at timestamptz,
  -- Set once the owner's key was seen to read the project: only then does the log show the row.
  visible boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX notify_deliveries_due ON notify_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX notify_deliveries_log ON notify_deliveries (webhook_id, id DESC);

CREATE TABLE notify_cursor (
  name text PRIMARY KEY,
  seq bigint NOT NULL
);
