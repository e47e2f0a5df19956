package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// Kind says what an audit line records.
type Kind string

const (
	// Intent: written, and synced, before the decision is sent.
	Intent Kind = "intent"
	// Result: what became of it, appended once known.
	Result Kind = "outcome"
)

// Outcome is what became of a decision, as the audit log and history say it.
type Outcome string

const (
	// The decision took effect; the run then finished, paused again at a
	// new interrupt, failed, was still running when hitl stopped following
	// it, or (backends without runs) the agent has the answer.
	Finished    Outcome = "finished"
	Interrupted Outcome = "interrupted"
	Failed      Outcome = "failed"
	Running     Outcome = "running"
	Accepted    Outcome = "accepted"
	// HandledElsewhere: another decision took effect first; this one did not.
	HandledElsewhere Outcome = "already-handled"
	// Busy: the thread was running another task; nothing was sent.
	Busy Outcome = "busy"
	// NotSent: the server certainly did not take it.
	NotSent Outcome = "not-sent"
	// ApprovalRecorded: a team rule's first approval, recorded on the hub
	// and not sent; it counts toward the same decision's sending when
	// another approver confirms it (their history says sent, naming both).
	ApprovalRecorded Outcome = "approval-recorded"
	// Refused: the hub refused it and recorded nothing (an approval of a
	// decision the reviewer approved already); nothing was sent.
	Refused Outcome = "refused"
	// Unknown: hitl could not tell whether the server took it.
	Unknown Outcome = "unknown"
	// Lost: the server took it (it created a run), then lost the run: no
	// run carries it and the interrupt still waits. It did not take effect.
	Lost Outcome = "lost"
	// Unconfirmed: the server ran it, but cannot show whose decision the
	// interrupt took (it may have been another reviewer's).
	Unconfirmed Outcome = "sent-unconfirmed"
	// legacyError is what older versions wrote for a failed send.
	legacyError Outcome = "error"
)

// Took reports whether the outcome is a decision that took effect.
func (o Outcome) Took() bool {
	switch o {
	case Finished, Interrupted, Failed, Running, Accepted:
		return true
	}
	return false
}

// OfRun is the outcome of a decision that took effect, by how its run ended.
func OfRun(s client.OutcomeStatus) Outcome {
	switch s {
	case client.Finished:
		return Finished
	case client.PausedAgain:
		return Interrupted
	case client.Failed:
		return Failed
	case client.Accepted:
		return Accepted
	}
	return Running
}

// Entry is one line of the audit log: an intent, an outcome, or (written by
// older versions) both at once.
type Entry struct {
	Kind       Kind      `json:"kind,omitempty"`
	DecisionID string    `json:"decision_id,omitempty"`
	Time       time.Time `json:"time"`
	// Reviewer is who decided: the reviewer hitl was given, or, where the
	// server names reviewers (a hub: the token's), the one its answer
	// named, on the outcome line ("" on the intent, written before it
	// answered; History merges the outcome's in).
	Reviewer string `json:"reviewer,omitempty"`
	Server   string `json:"server,omitempty"`
	// Deployment names the deployment the decision was sent to, whatever
	// its address ("profile prod"): behind a load balancer, or after a
	// replica moved, the same deployment answers at another URL.
	Deployment  string        `json:"deployment,omitempty"`
	ThreadID    string        `json:"thread_id,omitempty"`
	InterruptID string        `json:"interrupt_id"`
	Schema      client.Schema `json:"schema,omitempty"`
	Title       string        `json:"title,omitempty"`
	GraphID     string        `json:"graph_id,omitempty"`
	// Proposed are the tool calls as the agent proposed them (for an
	// export of what was decided: hitl history --json).
	Proposed  []Call            `json:"proposed,omitempty"`
	Decisions []client.Decision `json:"decisions,omitempty"`
	// Resume is the exact value sent (null for a breakpoint's continue).
	Resume  json.RawMessage `json:"resume,omitempty"`
	Outcome Outcome         `json:"outcome,omitempty"`
	RunID   string          `json:"run_id,omitempty"`
	Error   string          `json:"error,omitempty"`
	// Winner is the decision that took effect instead, when the server told.
	Winner *client.Winner `json:"winner,omitempty"`
	// PID is the process that wrote an intent: while it lives, the decision
	// is still being sent and no other process may reconcile it.
	PID int `json:"pid,omitempty"`
	// Resolved is when the outcome line was written (History merges it in).
	Resolved time.Time `json:"-"`
}

// Call is a tool call as proposed: its name and arguments.
type Call struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// Intend writes the intent lines of one decision (one per interrupt) and
// syncs them to disk before returning: only then may the decision be sent.
func (j *Journal) Intend(es []Entry) error {
	for i := range es {
		es[i].Kind = Intent
		es[i].PID = os.Getpid()
	}
	return j.write(es)
}

// Resolve appends the outcome lines of a decision (one per interrupt).
func (j *Journal) Resolve(es []Entry) error {
	for i := range es {
		es[i].Kind = Result
	}
	return j.write(es)
}

// Record appends complete entries (intent and outcome in one line), for
// decisions decided without sending anything.
func (j *Journal) Record(e Entry) error { return j.write([]Entry{e}) }

func (j *Journal) write(es []Entry) error {
	lines := make([][]byte, 0, len(es))
	j.mu.Lock()
	deployment := j.deployment
	j.mu.Unlock()
	for _, e := range es {
		e = j.redacted(e)
		if e.Deployment == "" {
			e.Deployment = deployment
		}
		if e.Time.IsZero() {
			e.Time = time.Now().UTC()
		}
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		lines = append(lines, b)
	}
	return appendLines(filepath.Join(j.dir, auditFile), lines, true)
}

// History returns the audit log, newest decision first: one entry per
// interrupt of each decision, its intent with its latest outcome merged
// in. An intent without an outcome has Outcome "". Entries are redacted
// like written ones (lines of older versions may hold what is hidden now).
// Lines that do not parse (a crash mid-write) are skipped.
func (j *Journal) History() ([]Entry, error) {
	j.hist.Lock()
	defer j.hist.Unlock()
	h, err := j.history()
	return slices.Clone(h), err
}

// history is the audit log as last read, read again when the file changed;
// hist is held. The caller does not change what it returns.
func (j *Journal) history() ([]Entry, error) {
	path := filepath.Join(j.dir, auditFile)
	h := &j.hist
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		h.cached, h.entries, h.others = false, nil, nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if h.cached && st.Size() == h.size && st.ModTime().Equal(h.mod) {
		return h.entries, nil
	}
	out, err := j.readHistory(path)
	if err != nil {
		return nil, err
	}
	// Keyed by the file as it was before the read: a line appended
	// meanwhile changes the size, and the next call reads it again.
	h.cached, h.size, h.mod, h.entries = true, st.Size(), st.ModTime(), out
	h.reads++
	h.others = nil
	for _, e := range out {
		if e.DecisionID != "" && e.Outcome == "" && e.PID != 0 && e.PID != os.Getpid() {
			h.others = append(h.others, e)
		}
	}
	return out, nil
}

func (j *Journal) readHistory(path string) ([]Entry, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	index := map[string]int{} // decision id + interrupt id -> position in out
	for _, line := range bytes.Split(b, []byte("\n")) {
		var e Entry
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &e) != nil {
			continue
		}
		e = j.redacted(e)
		key := e.DecisionID + "\x00" + e.InterruptID
		switch e.Kind {
		case Result:
			i, ok := index[key]
			if !ok {
				continue
			}
			out[i].Outcome, out[i].RunID, out[i].Error, out[i].Winner, out[i].Resolved = e.Outcome, e.RunID, e.Error, e.Winner, e.Time
			if e.Reviewer != "" {
				// Who the server recorded the decision as (a hub names
				// its token's reviewer in its answer): the intent,
				// written before it answered, may not have known.
				out[i].Reviewer = e.Reviewer
			}
		default:
			if e.Outcome == legacyError {
				e.Outcome = NotSent
			}
			if e.DecisionID != "" {
				index[key] = len(out)
			}
			out = append(out, e)
		}
	}
	for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	return out, nil
}

// inFlight is how long an intent whose process still lives counts as being
// sent: longer than any send takes (2 minutes at most), short enough that a
// process id reused later does not keep a decision unresolved for long.
const inFlight = 15 * time.Minute

// Unresolved lists the decisions sent to server whose outcome is not known:
// an intent with no outcome line, or an outcome of Unknown. A decision that
// another live process is sending right now is not listed: it is not
// unknown, only unfinished. Newest first.
func (j *Journal) Unresolved(server string) ([]Entry, error) {
	h, err := j.History()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, e := range h {
		if e.DecisionID == "" || !j.here(e, server) || (e.Outcome != "" && e.Outcome != Unknown) {
			continue
		}
		if sendingElsewhere(e) {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// sendingElsewhere: e is a decision that another live process is sending
// right now (an intent without outcome, written less than inFlight ago).
func sendingElsewhere(e Entry) bool {
	return e.Outcome == "" && e.PID != 0 && e.PID != os.Getpid() && time.Since(e.Time) < inFlight && alive(e.PID)
}

// Unsettled lists what Unresolved lists and, besides, the decisions whose run
// was still going when hitl stopped following it (outcome Running): the
// server may have finished that run since, or lost it. Newest first.
func (j *Journal) Unsettled(server string) ([]Entry, error) {
	h, err := j.History()
	if err != nil {
		return nil, err
	}
	open, err := j.Unresolved(server)
	if err != nil {
		return nil, err
	}
	unresolved := map[string]bool{}
	for _, e := range open {
		unresolved[e.DecisionID+"\x00"+e.InterruptID] = true
	}
	var out []Entry
	for _, e := range h {
		if unresolved[e.DecisionID+"\x00"+e.InterruptID] || (e.DecisionID != "" && j.here(e, server) && e.Outcome == Running) {
			out = append(out, e)
		}
	}
	return out, nil
}

// Last returns the newest audit entry for interrupt id.
func (j *Journal) Last(id string) (Entry, bool) {
	h, err := j.History()
	if err != nil {
		return Entry{}, false
	}
	for _, e := range h {
		if e.InterruptID == id {
			return e, true
		}
	}
	return Entry{}, false
}

// SetDeployment names the deployment this journal's decisions go to (a
// profile): entries written from now on carry it, and the decisions of
// unknown outcome sent to it are found at any of its addresses.
func (j *Journal) SetDeployment(name string) {
	j.mu.Lock()
	j.deployment = name
	j.mu.Unlock()
}

// here reports whether e was sent to the server at this address, or to
// the same deployment at another.
func (j *Journal) here(e Entry, server string) bool {
	j.mu.Lock()
	d := j.deployment
	j.mu.Unlock()
	return e.Server == server || (d != "" && e.Deployment == d)
}
