-- Approvals of the interrupts of sources that keep none themselves (an
-- A2A agent, opencode): one row per interrupt a two-person rule holds,
-- where every hub on the store reads it (store/approvals.go). The door's
-- own requests keep theirs on their row (requests.approval); a LangGraph
-- server keeps its own.
CREATE TABLE source_approvals (
  source       TEXT NOT NULL,     -- the source's server, as hitl names it
  interrupt_id TEXT NOT NULL,
  approval     BYTEA,             -- client.Approval as JSON
  state        TEXT NOT NULL,     -- approving | sending | sent
  changed_at   BIGINT NOT NULL,   -- unix nanoseconds, UTC
  version      BIGINT NOT NULL DEFAULT 1,
  PRIMARY KEY (source, interrupt_id)
);
CREATE INDEX source_approvals_changed ON source_approvals (changed_at);
