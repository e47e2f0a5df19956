package client

import "fmt"

// Dismiss ends a thread's work at an interrupt without answering it: the
// tool never runs and the agent is not asked again (Agent Inbox's "mark as
// resolved"). Its Message is the reason, put in the conversation.
const Dismiss DecisionType = "dismiss"

// EndKind is how a thread's work is ended at an interrupt.
type EndKind string

const (
	// EndDismiss: the interrupt is not answered; the reason stands in for
	// the tools' results.
	EndDismiss EndKind = "dismiss"
	// EndStop: each call is rejected with the message, and the agent is
	// not run again on it (a reject alone lets the model propose the same
	// call again).
	EndStop EndKind = "stop"
)

// Ending is a submission that ends the thread's work at its interrupt
// instead of resuming it (Resume.End). Reason is the text the conversation
// gets in place of each tool's result.
type Ending struct {
	Kind   EndKind `json:"kind"`
	Reason string  `json:"reason,omitempty"`
}

// Ender is a backend that can end a thread's work at an interrupt without
// resuming it (only LangGraph can: a state update as the interrupted node,
// then a run with no input).
type Ender interface {
	EndsThreads() bool
}

// InterruptEnder is an Ender whose interrupts differ (a hub of several
// sources: one ends threads, another does not): it says per interrupt.
type InterruptEnder interface {
	Ender
	// EndsThreadOf reports whether it's thread can be ended at it.
	EndsThreadOf(it Interrupt) bool
}

// Ends reports whether decisions end the thread rather than answer the
// interrupt: a dismiss, or rejects marked Stop. A mix is refused.
func Ends(ds []Decision) (*Ending, error) {
	var end *Ending
	n := 0
	for _, d := range ds {
		switch {
		case d.Type == Dismiss:
			end = &Ending{Kind: EndDismiss, Reason: d.Message}
			n++
		case d.Type == Reject && d.Stop:
			if end == nil {
				end = &Ending{Kind: EndStop, Reason: d.Message}
			}
			n++
		}
	}
	if end == nil {
		return nil, nil
	}
	if n != len(ds) {
		return nil, &RefusedError{Slot: -1, Reason: fmt.Sprintf("%s ends the whole thread's work: it cannot be mixed with other decisions on the same interrupt", end.Doing())}
	}
	return end, nil
}

// Doing names the ending as what one does, to begin a sentence about it:
// "dismissing", "rejecting and stopping".
func (e *Ending) Doing() string {
	if e.Kind == EndDismiss {
		return "dismissing"
	}
	return "rejecting and stopping"
}

// Words names the ending as history shows it.
func (e *Ending) Words() string {
	if e.Kind == EndDismiss {
		return "dismissed"
	}
	return "rejected and stopped"
}
