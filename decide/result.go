package decide

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
)

// Kind is what became of a decision, in the reviewer's words.
type Kind string

const (
	// Sent: this decision took effect (verified on the server).
	Sent Kind = "sent"
	// HandledElsewhere: another decision took effect first; this one did
	// nothing. The interrupt is answered.
	HandledElsewhere Kind = "handled-elsewhere"
	// Busy: the thread was running another task; nothing was sent and the
	// interrupt still waits.
	Busy Kind = "busy"
	// NotSent: certainly not taken; the draft is kept and may be sent again.
	NotSent Kind = "not-sent"
	// ApprovalRecorded: a team rule asks for more approvers of this
	// decision (hitl serve's two-person rule): it was recorded as an
	// approval, and nothing is sent until another approver confirms the
	// same decision. Nothing broke.
	ApprovalRecorded Kind = "approval-recorded"
	// Refused: the hub refused the decision and recorded nothing (the
	// reviewer approved this same decision already: the approval that
	// stands is theirs). Nothing was sent; the interrupt still waits.
	Refused Kind = "refused"
	// Unknown: hitl could not tell whether the server took it. The
	// interrupt stays listed (`hitl check` looks again).
	Unknown Kind = "unknown"
	// Lost: the server created a run for it, then lost that run (no run
	// carries the decision, the interrupt still waits): it did not take
	// effect. The interrupt is pending again on this machine.
	Lost Kind = "lost"
	// Unconfirmed: the server ran this decision, but cannot show whose
	// decision the interrupt took (aegra keeps neither a run's resume nor
	// its metadata, and may accept two resumes of one interrupt): it may
	// have been another reviewer's. Never told as "sent".
	Unconfirmed Kind = "sent-unconfirmed"
)

// ErrUnconfirmed is matched by the error of an Unconfirmed result.
var ErrUnconfirmed = errors.New("sent; this server cannot confirm it was yours")

// ErrNotSent is the error of a NotSent result.
var ErrNotSent = errors.New("not sent")

// ItemResult is what became of one interrupt's answer.
type ItemResult struct {
	ID     string
	Kind   Kind
	Winner *client.Winner
}

// Result is what became of one submission.
type Result struct {
	Kind       Kind
	Submission *client.Submission
	Items      []ItemResult
	// Reviewer is who the decision is recorded as: the server's word
	// where it names reviewers itself (a hub: the token's reviewer,
	// client.Receipt.Reviewer), else the pipeline's reviewer; "" where the
	// server names reviewers and has not said (it did not answer).
	Reviewer string
	// Run is how the run the decision started ended (Sent).
	Run client.Outcome
	// Warnings are things that went wrong around a decision that itself
	// went as Kind says (the audit log could not be written).
	Warnings []string
	// left: the resume left this machine (an answered interrupt found
	// before sending sent nothing).
	left  bool
	cause error
	// sentAt: when the resume left; waitedBefore: the interrupts still
	// waiting after the run that were seen waiting before it (not new).
	sentAt       time.Time
	waitedBefore map[string]bool
	// reasonInConv: an ending's reason was written into the conversation
	// (as each pending tool call's result); otherwise it is only in the
	// audit log.
	reasonInConv bool
}

func (r *Result) fail(k Kind, cause error) *Result {
	r.Kind, r.cause = k, cause
	return r
}

// Err is nil for a decision that took effect, and otherwise an error that
// says what happened; errors.Is tells the kinds apart: client.ErrAlreadyHandled,
// client.ErrBusy, ErrNotSent, client.ErrMaybeSent (Unknown).
func (r *Result) Err() error {
	if r.Kind == Sent {
		return nil
	}
	return &OutcomeError{r}
}

// OutcomeError is a Result that is not Sent, as an error.
type OutcomeError struct{ R *Result }

func (e *OutcomeError) Error() string { return e.R.Text() }

// Unwrap gives the underlying cause (a transport error, …).
func (e *OutcomeError) Unwrap() error { return e.R.cause }

// Is matches the sentinel of the result's kind.
func (e *OutcomeError) Is(target error) bool {
	switch e.R.Kind {
	case HandledElsewhere:
		return target == client.ErrAlreadyHandled
	case Busy:
		return target == client.ErrBusy
	case NotSent, Lost:
		return target == ErrNotSent
	case ApprovalRecorded:
		return target == client.ErrAwaitingApproval
	case Refused:
		return target == client.ErrRefused
	case Unknown:
		return target == client.ErrMaybeSent
	case Unconfirmed:
		return target == ErrUnconfirmed
	}
	return false
}

// Text says what happened, once, the same in the CLI and the TUI. Every
// piece of server text in it is inert.
func (r *Result) Text() string {
	s := r.Submission
	ids := shortIDs(s.IDs())
	thread := inert.Line(present.ThreadName(s.ThreadID))
	switch r.Kind {
	case Sent:
		head := fmt.Sprintf("Sent %s for %s (thread %s)", r.what(), ids, thread)
		msg := head + ": " + runText(r.Run, r.waitedBefore)
		if end := s.Items[0].Resume.End; end != nil && r.Run.Status == client.Finished {
			head = fmt.Sprintf("%s %s (thread %s)", strings.ToUpper(end.Words()[:1])+end.Words()[1:], ids, thread)
			msg = head + ": the thread's work ended there: no tool ran and the agent was not asked again" + r.reasonWhere(end) + "."
		}
		msg += r.forGood()
		if others := r.elsewhere(); others != "" {
			msg += " " + others
		}
		return msg
	case Unconfirmed:
		return fmt.Sprintf("Sent %s for %s (thread %s), but this server cannot confirm it was yours: it shows which runs ran, not whose answer the interrupt took, so another reviewer's decision may have taken effect instead. After it: %s",
			r.what(), ids, thread, runText(r.Run, r.waitedBefore))
	case HandledElsewhere:
		if !r.left {
			return fmt.Sprintf("%s: already handled elsewhere; nothing sent%s", ids, r.winnerText())
		}
		return fmt.Sprintf("%s: already handled elsewhere: another decision took effect first, and yours was not applied%s", ids, r.winnerText())
	case Busy:
		return fmt.Sprintf("%s: another run is in progress on this thread; nothing sent. It still waits (thread %s): look again in a moment.", ids, thread)
	case NotSent:
		return fmt.Sprintf("%s: not sent: %s", ids, inert.Line(causeText(r.cause)))
	case ApprovalRecorded:
		return fmt.Sprintf("%s: %s", ids, inert.Line(causeText(r.cause)))
	case Refused:
		return fmt.Sprintf("%s: refused: %s", ids, inert.Line(causeText(r.cause)))
	case Lost:
		return fmt.Sprintf("%s: the server lost the run that carried this decision (run %s): it did not take effect, and the interrupt waits again (thread %s): decide it again.",
			ids, inert.Line(orDash(r.Run.RunID)), thread)
	case Unknown:
		return fmt.Sprintf("%s: hitl cannot tell whether the decision reached the server: %s. It stays listed as unknown; `hitl check %s` looks again.",
			ids, inert.Line(causeText(r.cause)), present.ShortID(s.IDs()[0]))
	}
	return string(r.Kind)
}

// ReasonInConversation reports whether an ending's reason was written into
// the thread's conversation (as each tool call's result).
func (r *Result) ReasonInConversation() bool { return r.reasonInConv }

// reasonWhere says where an ending's reason was kept: in the conversation
// when it answered tool calls there, otherwise in hitl's audit log only
// (an interrupt without tool calls gets nothing written in its thread; an
// Agent Inbox request proposes an action, but not as a tool call there).
func (r *Result) reasonWhere(end *client.Ending) string {
	switch {
	case r.reasonInConv && strings.TrimSpace(end.Reason) == "":
		// As the confirm screen said (client.EndingNote): no reason to put
		// there, only that the call was not run.
		return " (each call's result in the conversation says it was not run; no reason given)"
	case r.reasonInConv:
		return " (the reason is in the conversation, as each call's result)"
	}
	why := "where no tool call waited for an answer"
	if it := r.Submission.Items[0].Interrupt; it.Payload.Schema == client.SchemaAgentInbox && len(it.Payload.Actions) > 0 {
		why = "where the request's action is not a tool call waiting for an answer"
	}
	if strings.TrimSpace(end.Reason) != "" {
		return " (the reason is in hitl's audit log only, `hitl history`: nothing was written in the conversation, " + why + ")"
	}
	return " (nothing was written in the conversation, " + why + ")"
}

func causeText(err error) string {
	if err == nil {
		return "no reason given"
	}
	return err.Error()
}

// what names the decisions sent: "approve", "edit, reject".
func (r *Result) what() string {
	var kinds []string
	for _, it := range r.Submission.Items {
		if w := ItemWords(it); w != "resume value" {
			kinds = append(kinds, w)
		}
	}
	if len(kinds) == 0 {
		return "resume value"
	}
	return strings.Join(kinds, ", ")
}

// ItemWords names what one item of a submission sends, as the reviewer
// reads it: "continue" for a breakpoint, the ending's words, "approve for
// good", the decisions' types ("edit, reject"), or "resume value" for a
// value sent as is. Whatever shows a decision before or after it is sent
// names it with these words.
func ItemWords(it client.Item) string {
	if it.Resume.Continue {
		return "continue"
	}
	if it.Resume.End != nil {
		return it.Resume.End.Words()
	}
	var kinds []string
	for _, d := range it.Decisions {
		if d.Always {
			kinds = append(kinds, "approve for good")
			continue
		}
		kinds = append(kinds, string(d.Type))
	}
	if len(kinds) == 0 {
		return "resume value"
	}
	return strings.Join(kinds, ", ")
}

// forGood says what an approve for good (opencode's "always") allowed:
// the agent's allow rules now hold its patterns, and it does not ask for
// them again. "" when no decision of the submission was one.
func (r *Result) forGood() string {
	var patterns []string
	for _, it := range r.Submission.Items {
		for _, d := range it.Decisions {
			if d.Always {
				patterns = append(patterns, it.Interrupt.Always...)
			}
		}
	}
	if len(patterns) == 0 {
		return ""
	}
	return " Its allow rules now hold " + inert.Line(strings.Join(patterns, ", ")) + ": it does not ask for them again."
}

// runText says how the run ended. Of the interrupts waiting after it,
// those in before were waiting already: they are not called new.
func runText(o client.Outcome, before map[string]bool) string {
	switch o.Status {
	case client.Finished:
		return "the run finished."
	case client.PausedAgain:
		if len(o.Pending) == 0 {
			return "the run paused again."
		}
		var fresh, old []string
		for _, id := range o.Pending {
			if before[id] {
				old = append(old, id)
			} else {
				fresh = append(fresh, id)
			}
		}
		switch {
		case len(old) == 0:
			return "the run paused again at " + shortIDs(fresh) + " (see hitl show)."
		case len(fresh) == 0:
			return "the run stopped: nothing new to decide; " + shortIDs(old) + " " + waits(len(old)) + " as before (see hitl show)."
		}
		return "the run paused again at " + shortIDs(fresh) + " (see hitl show); " + shortIDs(old) + " " + waits(len(old)) + " as before."
	case client.Failed:
		return "the run failed: " + inert.Line(o.Error)
	case client.Accepted:
		if o.Error != "" {
			return "the hub took the answer, but " + inert.Line(o.Error) + "."
		}
		return "the agent has the answer."
	}
	msg := "the run is still going (run " + inert.Line(o.RunID) + ")"
	if o.Error != "" {
		msg += "; " + inert.Line(o.Error)
	}
	return msg + "."
}

// elsewhere names the interrupts of a batch that another decision took.
func (r *Result) elsewhere() string {
	var ids []string
	for _, it := range r.Items {
		if it.Kind == HandledElsewhere {
			ids = append(ids, it.ID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return shortIDs(ids) + " had already been handled elsewhere: your answer to it was not applied."
}

// winnerText says who decided instead, and what, when the server told.
func (r *Result) winnerText() string {
	for _, it := range r.Items {
		if s := WinnerText(it.Winner); s != "" {
			return s
		}
	}
	return ""
}

// WinnerText says who took a decision and what it was, as " (by bob at
// 12:03:04, answer …)", or "" when the server did not tell.
func WinnerText(w *client.Winner) string {
	if w == nil {
		return ""
	}
	if w.Withdrawn != "" {
		return " (withdrawn: " + inert.Line(w.Withdrawn) + ")"
	}
	var parts []string
	if w.Reviewer != "" {
		parts = append(parts, "by "+inert.Line(w.Reviewer))
	}
	if !w.At.IsZero() {
		parts = append(parts, "at "+w.At.Local().Format("15:04:05"))
	}
	if len(w.Value) > 0 {
		// One line, as JSON is written compactly: the value's own line
		// breaks and indent would read as \n and runs of spaces.
		raw := []byte(w.Value)
		var c bytes.Buffer
		if json.Compact(&c, raw) == nil {
			raw = c.Bytes()
		}
		v := inert.Line(string(raw))
		if r := []rune(v); len(r) > 120 {
			v = fmt.Sprintf("%s… (%d more characters)", string(r[:117]), len(r)-117)
		}
		parts = append(parts, "answer "+v)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func waits(n int) string {
	if n == 1 {
		return "still waits"
	}
	return "still wait"
}

func shortIDs(ids []string) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = inert.Line(present.ShortID(id))
	}
	return strings.Join(s, ", ")
}
