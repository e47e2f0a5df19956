package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// Entry is one decision in the team's audit log: whoever made it, through
// whichever door, on whichever source's request.
type Entry struct {
	ID       int64     `json:"id"`
	At       time.Time `json:"at"`
	Reviewer string    `json:"reviewer"`
	Role     string    `json:"role,omitempty"`
	// Source is whose request it decided: "hook" (a coding agent's),
	// "publisher" (another publisher's), "langgraph" (the LangGraph
	// server's interrupt).
	Source string `json:"source"`
	// Door is how the decision came: "http" (the door: hitl --backend
	// events, the CLI through it) or "ssh" (a session).
	Door      string   `json:"door"`
	Hub       string   `json:"hub,omitempty"`
	RequestID string   `json:"request_id"`
	ThreadID  string   `json:"thread_id,omitempty"`
	Tools     []string `json:"tools,omitempty"`
	// Decision is the decisions' types, one per action ("approve,reject").
	Decision string `json:"decision,omitempty"`
	// Value is the exact value sent (or, for an approval, approved).
	Value     []byte   `json:"-"`
	Approvers []string `json:"approvers,omitempty"`
	// Outcome: Sent, Approved (an approval recorded, more needed), Refused,
	// Conflict (handled elsewhere first), Failed, Dropped (a pending
	// approval of a reviewer no longer an approver, at a reload),
	// Withdrawn (a pending approval the request's withdrawal dropped).
	Outcome    string `json:"outcome"`
	Message    string `json:"message,omitempty"`
	DecisionID string `json:"decision_id,omitempty"`
	// First is the entry of the first approval this one completes.
	First int64 `json:"first_approval,omitempty"`
}

// Outcomes of an audit entry, spelled as GET /hitl/history, `hitl
// history --team` (its rows, --json and --outcome) and the docs spell them.
const (
	OutcomeSent     = "sent"
	OutcomeApproved = "approval-recorded"
	OutcomeRefused  = "refused"
	OutcomeConflict = "handled-elsewhere"
	OutcomeFailed   = "failed"
	OutcomeDropped  = "approval-dropped"
	// OutcomeWithdrawn: the request was withdrawn with the approval
	// pending (its hook stopped waiting, it expired, its publisher took it
	// back): the approval no longer counts.
	OutcomeWithdrawn = "withdrawn"
)

// Outcomes are every outcome an entry may have.
var Outcomes = []string{OutcomeSent, OutcomeApproved, OutcomeRefused, OutcomeConflict, OutcomeFailed, OutcomeDropped, OutcomeWithdrawn}

// oldSpellings are outcomes as older hubs wrote them (words): read as
// today's, and matched by a filter on today's.
var oldSpellings = map[string]string{OutcomeApproved: "approval recorded", OutcomeConflict: "handled elsewhere", OutcomeDropped: "approval dropped"}

// OutcomeOf is the outcome s names, today's spelling or an older one; ok
// is false for none.
func OutcomeOf(s string) (string, bool) {
	for _, o := range Outcomes {
		if s == o || s == oldSpellings[o] && s != "" {
			return o, true
		}
	}
	return "", false
}

// Audit appends e to the audit log and returns its id. An entry that
// completes approvals names the first one's entry (First), found here when
// the caller left it 0.
func (s *Store) Audit(ctx context.Context, e Entry) (int64, error) {
	var id int64
	err := s.quietly(ctx, func(tx *sql.Tx) error {
		var err error
		id, err = s.audit(ctx, tx, e)
		return err
	})
	return id, err
}

// audit appends e to the audit log within tx: with the change it records
// (Finish, SetApproval), so that a hub killed at any moment leaves both
// or neither.
func (s *Store) audit(ctx context.Context, tx *sql.Tx, e Entry) (id int64, err error) {
	if e.At.IsZero() {
		e.At = time.Now().UTC()
	}
	if e.First == 0 && e.Outcome == OutcomeSent && len(e.Approvers) > 1 {
		var first sql.NullInt64
		// The first approver's (Approvers are in the order they
		// approved): an approval dropped at a reload is not its first.
		if err := tx.QueryRowContext(ctx, s.q("SELECT MIN(id) FROM audit WHERE request_id = ? AND outcome IN (?, ?) AND reviewer = ? AND id > COALESCE((SELECT MAX(id) FROM audit WHERE request_id = ? AND outcome = ?), 0)"),
			e.RequestID, OutcomeApproved, oldSpellings[OutcomeApproved], e.Approvers[0], e.RequestID, OutcomeSent).Scan(&first); err != nil {
			return 0, err
		}
		e.First = first.Int64
	}
	args := []any{nanos(e.At), text(e.Reviewer), text(e.Role), e.Source, e.Door, text(e.Hub), text(e.RequestID), text(e.ThreadID),
		text(strings.Join(e.Tools, ",")), text(e.Decision), e.Value, text(strings.Join(e.Approvers, ",")), e.Outcome, text(e.Message),
		text(e.DecisionID), e.First}
	const cols = "at, reviewer, role, source, door, hub, request_id, thread_id, tools, decision, value, approvers, outcome, message, decision_id, first_id"
	if s.kind == Postgres {
		err = tx.QueryRowContext(ctx, s.q("INSERT INTO audit ("+cols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"), args...).Scan(&id)
		return id, err
	}
	res, err := tx.ExecContext(ctx, "INSERT INTO audit ("+cols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// Filter picks audit entries; its zero value picks the newest.
type Filter struct {
	// Outcome is one of Outcomes (or an older spelling of one).
	Reviewer, Source, Outcome, RequestID, Tool string
	Since                                      time.Time
	// Limit caps how many (newest first); 0: 1000.
	Limit int
}

// AuditedRequests are the ids of the requests the audit log has entries
// of that begin with prefix (the short id the screens show), at most max.
func (s *Store) AuditedRequests(ctx context.Context, prefix string, max int) ([]string, error) {
	esc := strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(prefix)
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT DISTINCT request_id FROM audit WHERE request_id LIKE ? ESCAPE '\' ORDER BY request_id LIMIT ?`), esc+"%", max)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		if strings.HasPrefix(id, prefix) { // LIKE ignores case in SQLite
			out = append(out, id)
		}
	}
	return out, rows.Err()
}

// History lists the audit entries f picks, newest first.
func (s *Store) History(ctx context.Context, f Filter) ([]Entry, error) {
	q := "SELECT id, at, reviewer, role, source, door, hub, request_id, thread_id, tools, decision, value, approvers, outcome, message, decision_id, first_id FROM audit WHERE 1 = 1"
	var args []any
	add := func(cond string, v any) {
		q += " AND " + cond
		args = append(args, v)
	}
	if f.Reviewer != "" {
		add("reviewer = ?", f.Reviewer)
	}
	if f.Source != "" {
		add("source = ?", f.Source)
	}
	if f.Outcome != "" {
		o, _ := OutcomeOf(f.Outcome)
		add("outcome IN (?, ?)", o)
		args = append(args, oldSpellings[o])
	}
	if f.RequestID != "" {
		add("request_id = ?", f.RequestID)
	}
	if f.Tool != "" {
		add("(tools = ? OR tools LIKE ? OR tools LIKE ? OR tools LIKE ?)", f.Tool)
		args = append(args, f.Tool+",%", "%,"+f.Tool, "%,"+f.Tool+",%")
	}
	if !f.Since.IsZero() {
		add("at >= ?", nanos(f.Since))
	}
	if f.Limit <= 0 {
		f.Limit = 1000
	}
	q += " ORDER BY id DESC LIMIT ?"
	args = append(args, f.Limit)
	rows, err := s.db.QueryContext(ctx, s.q(q), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var at int64
		var tools, approvers string
		if err := rows.Scan(&e.ID, &at, &e.Reviewer, &e.Role, &e.Source, &e.Door, &e.Hub, &e.RequestID, &e.ThreadID, &tools, &e.Decision,
			&e.Value, &approvers, &e.Outcome, &e.Message, &e.DecisionID, &e.First); err != nil {
			return nil, err
		}
		e.At = timeOf(at)
		if o, ok := OutcomeOf(e.Outcome); ok {
			e.Outcome = o
		}
		if tools != "" {
			e.Tools = strings.Split(tools, ",")
		}
		if approvers != "" {
			e.Approvers = strings.Split(approvers, ",")
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
