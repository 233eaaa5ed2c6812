-- Why a session was ended: the person signed out, or the API refused its key (a 401 on any of its
-- requests). A request of that session arriving afterwards, on any instance, is answered with that reason.
ALTER TABLE revoked_sessions ADD COLUMN reason text NOT NULL DEFAULT 'signed-out' CHECK (reason IN ('signed-out', 'rejected'));
