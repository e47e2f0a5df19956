package present

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/inert"
)

// What the CLI and the TUI both say of a thread whose run failed.

// FailureGist is the first line of a failure's error, inert ("the run
// failed" when the server keeps no text; then the decision this machine
// sent may say more).
func FailureGist(f client.Failure, sent *journal.Entry) string {
	text := strings.TrimSpace(f.Error)
	if text == "" && sent != nil {
		text = strings.TrimSpace(sent.Error)
	}
	if text == "" {
		return "the run failed (the server keeps no error text)"
	}
	first, _, _ := strings.Cut(text, "\n")
	return inert.Line(first)
}

// FailureError is a failure's error in full, inert, lines kept: the
// server's, else what this machine recorded when its decision's run
// failed.
func FailureError(f client.Failure, sent *journal.Entry) string {
	switch {
	case strings.TrimSpace(f.Error) != "":
		return inert.Block(f.Error)
	case sent != nil && strings.TrimSpace(sent.Error) != "":
		return inert.Block(sent.Error) + "\n(as recorded here when the run failed; the server keeps no error text)"
	}
	return "(the server keeps no error text)"
}

// KeptAnswerNote says, before a decision on it is sent, what answering
// again does to an interrupt whose task failed after the graph took its
// answer (client.Interrupt.KeptAnswer), or may have (MayKeepAnswer), or
// on a server that resumes no failed thread (CannotAnswerAgain); "" for
// any other.
func KeptAnswerNote(it client.Interrupt) string {
	switch {
	case !it.Retry:
		return ""
	case it.CannotAnswerAgain:
		return "this server resumes no thread whose last run failed (it resumes only a thread that waits on an interrupt): it will refuse this decision, and nothing is sent"
	case it.KeptAnswer:
		return "the last run failed in " + inert.Line(ShortID(it.ID)) + "'s own task after the graph took its answer, and the graph keeps that answer: " +
			"a new one is not used; sending runs the task again with the first answer (of use only if what failed has recovered)"
	case it.MayKeepAnswer:
		return "the last run failed in " + inert.Line(ShortID(it.ID)) + "'s own task, and this server shows no answer schema to tell why: " +
			"if a schema refused the answer, this one is used; if the task failed after taking it, the graph keeps the first answer and this one is not used " +
			"(the run then fails again with the same error)"
	}
	return ""
}

// FailureAdvice says what the reviewer can do about a failure.
func FailureAdvice(f client.Failure) string {
	if len(f.Interrupts) == 0 {
		return "The thread holds no interrupt: hitl cannot resume it. Read its conversation to see where the agent stopped, and start it again from your application."
	}
	held := "The thread's state still holds " + plural(len(f.Interrupts), "interrupt", "interrupts") +
		" (" + inert.Line(ShortID(f.Interrupts[0].ID)) + moreIDs(f.Interrupts) + ")"
	kept, refused, may := true, false, false
	for _, it := range f.Interrupts {
		kept = kept && it.KeptAnswer
		refused = refused || it.CannotAnswerAgain
		may = may || it.MayKeepAnswer
	}
	switch {
	case refused:
		return held + ", but this server resumes no thread whose last run failed (it resumes only a thread that waits on an interrupt): " +
			"hitl cannot answer it again. Start the agent again from your application (a new run on the thread, or a new thread)."
	case kept:
		return held + ", but its task failed after the graph took the answer, and the graph keeps it: " +
			"a new answer is not used. Answering again only runs the task again with the first answer, which helps only if what failed has recovered; " +
			"otherwise the thread must be started again from your application."
	case may:
		return held + ": the server takes a new answer, but shows no answer schema to tell why the task failed. " +
			"If a schema refused the answer, a corrected one resumes the run; if the task failed after taking it, the graph keeps the first answer, " +
			"a new one is not used, and the run fails again with the same error: then only your application can start the thread again."
	}
	return held + ": the server takes a new answer. " +
		"After an answer the graph refused (a response schema mismatch), a corrected one resumes the run; " +
		"if the run fails again with the same error, the graph kept the first answer and a new one cannot help."
}

func moreIDs(its []client.Interrupt) string {
	var b strings.Builder
	for _, it := range its[1:] {
		b.WriteString(", " + inert.Line(ShortID(it.ID)))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "an " + one
	}
	return strconv.Itoa(n) + " " + many
}

// LastSent is the newest decision this machine sent to server for the
// thread: what led there, when it came from here. hist is newest first
// (journal.History).
func LastSent(hist []journal.Entry, server, thread string) *journal.Entry {
	for i := range hist {
		if hist[i].ThreadID == thread && hist[i].Server == server && hist[i].DecisionID != "" {
			return &hist[i]
		}
	}
	return nil
}

// SentLine says, on one line of at most w cells (0: no limit), which
// decision this machine sent: when, who, what, its outcome and the
// exact value.
func SentLine(e journal.Entry, w int) string {
	who := ""
	if e.Reviewer != "" { // a hub that had not answered yet did not say who
		who = " " + inert.Line(e.Reviewer)
	}
	s := e.Time.Local().Format("2006-01-02 15:04:05") + who + ": " + Decided(e) +
		" on " + inert.Line(ShortID(e.InterruptID)) + " → " + Outcome(e)
	if len(e.Resume) > 0 && string(e.Resume) != "null" {
		var c bytes.Buffer
		if json.Compact(&c, e.Resume) == nil {
			s += " · sent " + string(inert.JSON(c.Bytes()))
		}
	}
	if w > 0 {
		s = ansi.Truncate(s, w, "…")
	}
	return s
}
