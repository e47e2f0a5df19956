-- The hub's state: publishers' requests and their answers, approvals, the
-- event log that streams resume from, and the team's audit log.
CREATE TABLE requests (
  id           TEXT PRIMARY KEY,
  publisher    TEXT NOT NULL,
  source       TEXT NOT NULL DEFAULT '',  -- hook | publisher: whose request
  agent        TEXT NOT NULL,
  session_id   TEXT NOT NULL,
  created_at   INTEGER NOT NULL,  -- unix nanoseconds, UTC
  data         BLOB,              -- NULL once pruned
  status       TEXT NOT NULL,     -- pending | answered | withdrawn
  response     BLOB,
  responded_by TEXT NOT NULL DEFAULT '',
  decision_id  TEXT NOT NULL DEFAULT '',
  answered_at  INTEGER NOT NULL DEFAULT 0,
  reason       TEXT NOT NULL DEFAULT '',
  approval     BLOB,              -- client.Approval as JSON, while pending
  expires_at   INTEGER NOT NULL DEFAULT 0,
  version      INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX requests_pending ON requests (status, created_at);
CREATE INDEX requests_answered ON requests (answered_at);

CREATE TABLE events (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  at         INTEGER NOT NULL,
  type       TEXT NOT NULL,
  request_id TEXT NOT NULL DEFAULT '',
  hub        TEXT NOT NULL DEFAULT '',  -- '' every hub's; else only that hub's stream
  data       BLOB                       -- NULL: the request as it stands
);
CREATE INDEX events_at ON events (at);

CREATE TABLE audit (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  at          INTEGER NOT NULL,
  reviewer    TEXT NOT NULL,
  role        TEXT NOT NULL DEFAULT '',
  source      TEXT NOT NULL,      -- hook | publisher | langgraph
  door        TEXT NOT NULL,      -- http | ssh
  hub         TEXT NOT NULL DEFAULT '',
  request_id  TEXT NOT NULL,
  thread_id   TEXT NOT NULL DEFAULT '',
  tools       TEXT NOT NULL DEFAULT '',
  decision    TEXT NOT NULL DEFAULT '',
  value       BLOB,
  approvers   TEXT NOT NULL DEFAULT '',
  outcome     TEXT NOT NULL,
  message     TEXT NOT NULL DEFAULT '',
  decision_id TEXT NOT NULL DEFAULT '',
  first_id    INTEGER NOT NULL DEFAULT 0  -- the first approval this entry completes
);
CREATE INDEX audit_at ON audit (at);
CREATE INDEX audit_request ON audit (request_id);
