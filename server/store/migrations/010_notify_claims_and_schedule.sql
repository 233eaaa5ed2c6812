-- Notifications that lose nothing and outlast an outage (docs/notifications.md).
--
-- The dispatcher claims transitions not yet dispatched instead of reading after a sequence cursor: a
-- transaction that commits after a higher `seq` was skipped by the cursor. What the cursor had passed is
-- dispatched already (on a store where it never ran, everything was before notifications, as the cursor
-- started at the end).
ALTER TABLE operation_transitions ADD COLUMN dispatched_at timestamptz;
UPDATE operation_transitions SET dispatched_at = now()
  WHERE seq <= coalesce((SELECT seq FROM notify_cursor WHERE name = 'operation_transitions'), (SELECT max(seq) FROM operation_transitions), 0);
CREATE INDEX operation_transitions_undispatched ON operation_transitions (seq) WHERE dispatched_at IS NULL;
DROP TABLE notify_cursor;

-- A webhook pauses after failing continuously for a long time, measured from the first failure after its
-- last success, not by a count of attempts.
ALTER TABLE notify_webhooks ADD COLUMN failing_since timestamptz;
ALTER TABLE notify_webhooks ADD COLUMN last_success_at timestamptz;

-- Each event's own retry schedule counts the attempts of its round (since it was queued, resumed or
-- redelivered); `attempts` stays the total the log shows. The log keeps what a person asks about a delivery:
-- the project's name, what was sent, how long the receiver took.
ALTER TABLE notify_deliveries ADD COLUMN round_attempts integer NOT NULL DEFAULT 0;
UPDATE notify_deliveries SET round_attempts = attempts;
ALTER TABLE notify_deliveries ADD COLUMN project_name text;
ALTER TABLE notify_deliveries ADD COLUMN last_body text;
ALTER TABLE notify_deliveries ADD COLUMN last_duration_ms integer;
CREATE INDEX notify_deliveries_webhook_due ON notify_deliveries (webhook_id, next_attempt_at) WHERE state = 'pending';
