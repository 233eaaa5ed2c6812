-- The collector's heartbeat (docs/archive.md, "One collector per deployment"): the instance holding the
-- collector's advisory lock stamps `beat_at` every few seconds on the lock's own connection. An instance that
-- takes the lock over waits until the previous holder's last beat is old enough that a holder whose connection
-- went silent has stopped collecting; a holder that stops cleanly clears it, so the next one starts at once.
CREATE TABLE collector_lease (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  beat_at timestamptz
);
