package present

import (
	"encoding/json"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
)

// Export is one decision of the audit log as `hitl history --json` writes
// it, one JSON object a line (JSON Lines), for evaluation and training
// sets: what the agent proposed, what the reviewer decided, and what
// became of it. An interrupt with several actions gives one per action.
type Export struct {
	InterruptID string    `json:"interrupt_id"`
	ThreadID    string    `json:"thread_id"`
	GraphID     string    `json:"graph_id,omitempty"`
	Server      string    `json:"server,omitempty"`
	Title       string    `json:"title,omitempty"`
	Action      int       `json:"action,omitempty"` // 1-based, where the interrupt has actions
	Tool        string    `json:"tool,omitempty"`
	Proposed    any       `json:"proposed_args,omitempty"`
	Decision    string    `json:"decision"`
	Stop        bool      `json:"stop,omitempty"` // a reject that ended the thread's work
	EditedArgs  any       `json:"edited_args,omitempty"`
	EditedName  string    `json:"edited_name,omitempty"`
	Message     string    `json:"message,omitempty"`
	Answers     []string  `json:"answers,omitempty"`
	Value       any       `json:"value,omitempty"`
	Reviewer    string    `json:"reviewer,omitempty"`
	Time        time.Time `json:"time"`
	Outcome     string    `json:"outcome"`
	DecisionID  string    `json:"decision_id,omitempty"`
	RunID       string    `json:"run_id,omitempty"`
	// Resume is the exact value sent for the interrupt (all its actions).
	Resume json.RawMessage `json:"resume,omitempty"`
}

// Exports turns one audit entry into its export lines.
func Exports(e journal.Entry) []Export {
	base := Export{InterruptID: e.InterruptID, ThreadID: e.ThreadID, GraphID: e.GraphID, Server: e.Server, Title: e.Title,
		Reviewer: e.Reviewer, Time: e.Time, Outcome: OutcomeCode(e), DecisionID: e.DecisionID, RunID: e.RunID, Resume: e.Resume}
	if len(e.Decisions) == 0 || continued(e) {
		base.Decision = Decided(e) // continue, resume value
		return []Export{base}
	}
	raw := func(r json.RawMessage) any {
		if len(r) == 0 {
			return nil
		}
		return r
	}
	out := make([]Export, len(e.Decisions))
	for i, d := range e.Decisions {
		x := base
		if len(e.Decisions) > 1 || len(e.Proposed) > 0 {
			x.Action = i + 1
		}
		if i < len(e.Proposed) {
			x.Tool, x.Proposed = e.Proposed[i].Name, raw(e.Proposed[i].Args)
		}
		x.Decision, x.Stop, x.Message, x.Answers, x.Value = string(d.Type), d.Stop, d.Message, d.Answers, raw(d.Value)
		if d.Type == client.Edit {
			x.EditedArgs, x.EditedName = raw(d.Args), d.Name
		}
		out[i] = x
	}
	return out
}
