package review

import (
	"errors"
	"fmt"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
)

// OK is a command that did what it was asked (exit status 0).
const OK Kind = 0

// ErrorJSON is the --json object of a decision command that ended before
// a resume's outcome (err, of Kind code): the result by name, the exit
// code, the words (as on stderr), the ids asked for, and what is known of
// the interrupt and of the decision that answered it.
func ErrorJSON(err error, code Kind, ids []string, thread string) map[string]any {
	result := map[Kind]string{Failed: "error", Usage: "usage", Nothing: "nothing-to-do", Refused: "refused"}[code]
	out := map[string]any{"exit_code": code, "message": err.Error()}
	if ids == nil {
		ids = []string{}
	}
	out["asked"] = ids
	if thread != "" {
		out["thread"] = thread
	}
	var ab *About
	if errors.As(err, &ab) {
		result = ab.Result
		if ab.ID != "" {
			out["interrupt_id"] = ab.ID
		}
		if ab.Winner != nil {
			out["winner"] = ab.Winner
		}
	}
	out["result"] = result
	return out
}

// Worse is the Kind of two results: the higher code, except that
// an approval recorded (6) gives way to any other code but 0 (what else
// happened is what a script must hear).
func Worse(a, b Kind) Kind {
	rank := func(c Kind) int {
		switch c {
		case OK:
			return 0
		case Pending:
			return 1
		}
		return int(c) + 1
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// OfResult is the Kind and error of a result (hitl help exit-codes): OK
// and nil for a decision sent whose run did not fail.
func OfResult(r *decide.Result) (Kind, error) {
	switch r.Kind {
	case decide.Sent:
		if r.Run.Status == client.Failed {
			return Failed, &Error{Failed, fmt.Errorf("the decision was sent, but the run failed: %s", safe(r.Run.Error))}
		}
		return OK, nil
	case decide.HandledElsewhere:
		return Nothing, &Error{Nothing, r.Err()}
	case decide.Unconfirmed:
		return Unconfirmed, &Error{Unconfirmed, r.Err()}
	case decide.Busy, decide.Refused: // not handled: it still waits
		return Refused, &Error{Refused, r.Err()}
	case decide.ApprovalRecorded: // nothing broke: the rule waits for another approver
		return Pending, &Error{Pending, r.Err()}
	}
	return Failed, &Error{Failed, r.Err()}
}

// ResultJSON is the --json object of a result: with its exit code
// (OfResult), as every --json result object has (ErrorJSON).
func ResultJSON(r *decide.Result) map[string]any {
	s := r.Submission
	code, _ := OfResult(r)
	out := map[string]any{"result": r.Kind, "exit_code": code, "decision_id": s.DecisionID, "thread_id": s.ThreadID,
		"interrupt_id": s.Items[0].Interrupt.ID, "interrupt_ids": s.IDs(), "message": r.Text()}
	if len(s.Items) == 1 {
		out["resume"] = ResumeJSON(s.Items[0].Resume)
	} else {
		m := map[string]any{}
		for _, it := range s.Items {
			m[it.Interrupt.ID] = ResumeJSON(it.Resume)
		}
		out["resumes"] = m
	}
	if r.Reviewer != "" {
		out["reviewer"] = r.Reviewer
	}
	if r.Kind == decide.Sent {
		out["outcome"] = r.Run
	}
	var items []map[string]any
	for _, it := range r.Items {
		x := map[string]any{"interrupt_id": it.ID, "result": it.Kind}
		if it.Winner != nil {
			x["winner"] = it.Winner
		}
		items = append(items, x)
	}
	if items != nil {
		out["items"] = items
	}
	return out
}

// ResumeJSON is a resume value as --json and --dry-run print it: null for
// a continue, EndingText for an ending.
func ResumeJSON(r client.Resume) any {
	if r.Continue {
		return nil
	}
	if r.End != nil {
		return EndingText(r.End)
	}
	return r.Value
}

// EndingText says what an ending does instead of a resume value (which it
// has none of): --dry-run prints it.
func EndingText(end *client.Ending) string {
	reason := "no reason given"
	if end.Reason != "" {
		reason = fmt.Sprintf("%q", end.Reason)
	}
	return fmt.Sprintf("(%s: no resume value; the thread's work ends at this interrupt, the reason (%s) standing in for each pending tool call's result, or, with no tool call, kept in hitl's audit log only; the thread ends idle)", end.Words(), safe(reason))
}
