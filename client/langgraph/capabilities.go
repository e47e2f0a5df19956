package langgraph

import "github.com/hitl-sh/hitl/client"

// Features: what this backend offers beyond client.Backend (the table is
// in ARCHITECTURE.md), every one of them. Each field takes the backend as
// that interface, so the compiler checks that a renamed method does not
// turn a feature off unnoticed.
func (b *Backend) Features() client.Features {
	return client.Features{
		Batcher:        b, // several branches in one resume
		Claimer:        b, // team presence (claims.go)
		Conversational: b, // hitl conversation (conversation.go)
		Ender:          b, // dismiss, reject --stop (end.go)
		FailureLister:  b, // runs that failed (failed.go)
		Notifier:       b, // change signals (stream.go)
		Progressive:    b, // long listings show progress (pending.go)
		Settled:        b, // an idle reader reads nothing (look.go)
		Activity:       b, // when any thread last changed (look.go)
		ApprovalKeeper: b, // a team's approvals (approvals.go)
		Redactor:       b, // the journal hides credentials (transport.Conn)
		Attentive:      b, // looks seldom while no reviewer is there (stream.go)
	}
}
