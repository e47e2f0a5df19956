package client

import (
	"encoding/json"
	"reflect"
)

// Features are what a backend offers beyond Backend, stated in one value:
// each field is the backend itself (or a wrapper's own method set) where it
// offers that feature, nil where it does not. A front end asks this value
// (Backend.Features) instead of asserting interfaces, and a wrapper builds
// its own from the wrapped backend's (Features.Names lists what is set), so
// a feature is never lost because a wrapper did not re-declare a method.
type Features struct {
	// Batcher: several branches of a thread answered in one resume.
	Batcher Batcher
	// Claimer: team presence, who is drafting what.
	Claimer Claimer
	// Conversational: the thread's messages (hitl conversation).
	Conversational Conversational
	// Ender: a thread's work ended at an interrupt (dismiss, reject --stop).
	Ender Ender
	// FailureLister: runs that failed, answered again.
	FailureLister FailureLister
	// Notifier: change signals, so that a screen updates at once.
	Notifier Notifier
	// Progressive: a long listing shows what has arrived.
	Progressive Progressive
	// RunController: hitl run pause|resume|cancel.
	RunController RunController
	// Settled: a periodic reader told, without a request, that nothing
	// changed (needs Notifier).
	Settled Settled
	// Activity: when any watched thread last changed (needs Notifier).
	Activity Activity
	// ApprovalKeeper: a team's approvals kept where every hub reads them.
	ApprovalKeeper ApprovalKeeper
	// Redactor: the credentials the backend holds, hidden from what the
	// journal and the screen show.
	Redactor Redactor
	// Attentive: a watcher told whether a reviewer is there, which looks
	// seldom while none is (needs Notifier).
	Attentive Attentive
	// Messenger: the answer goes in a message of the backend's own around
	// the resume value (an A2A message), shown before it is sent.
	Messenger Messenger
	// ReviewerNamer: the server, not hitl, names who decides (a hub: the
	// token's reviewer); hitl's audit log names the reviewer its answer
	// says (Receipt.Reviewer), and none before it.
	ReviewerNamer ReviewerNamer
}

// ReviewerNamer says whether the server names the reviewer of a decision
// itself (it takes the token's, never a name hitl sends): the local name
// (config's reviewer, $USER) is then not who decided.
type ReviewerNamer interface {
	NamesReviewer() bool
}

// NamesReviewer reports whether the server names who decides
// (ReviewerNamer).
func (f Features) NamesReviewer() bool {
	return f.ReviewerNamer != nil && f.ReviewerNamer.NamesReviewer()
}

// Messenger says the message a backend sends around an answer's resume
// value (an A2A message: its parts, task, context and metadata), as it
// will send it for s's item i, from what its listing read (no request).
// The decision's id in it is s.DecisionID's. ok is false when it cannot
// tell (the interrupt was not listed by this backend).
type Messenger interface {
	Message(s *Submission, i int) (msg json.RawMessage, ok bool)
}

// Redactor hides the credentials a backend holds (URL userinfo, tokens)
// in a text.
type Redactor interface {
	Redact(s string) string
}

// Ends reports whether the backend can end a thread's work at an
// interrupt (dismiss, reject --stop).
func (f Features) Ends() bool { return f.Ender != nil && f.Ender.EndsThreads() }

// EndsAt reports whether it's thread can be ended at it (dismiss, reject
// and stop): the backend ends threads, the interrupt is not a coding
// agent's request (its agent waits for an answer: there is no thread to
// end), and a backend that says per interrupt says so for this one.
func (f Features) EndsAt(it Interrupt) bool {
	if !f.Ends() || it.Origin != nil {
		return false
	}
	if e, ok := f.Ender.(InterruptEnder); ok {
		return e.EndsThreadOf(it)
	}
	return true
}

// Batches reports whether the backend takes several interrupts of one
// thread in one resume.
func (f Features) Batches() bool { return f.Batcher != nil && f.Batcher.Batches() }

// Names lists the features offered, by their field's name, in the order
// of the fields: what a conformance test compares between a backend and a
// wrapper of it (client/backendtest.SameFeatures).
func (f Features) Names() []string {
	var out []string
	v := reflect.ValueOf(f)
	for i := range v.NumField() {
		if !v.Field(i).IsNil() {
			out = append(out, v.Type().Field(i).Name)
		}
	}
	return out
}
