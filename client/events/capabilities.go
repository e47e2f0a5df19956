package events

import "github.com/hitl-sh/hitl/client"

// Features: what this backend offers beyond client.Backend (the table is
// in ARCHITECTURE.md), every one of them; the compiler checks each. Ending
// a thread's work and a session's conversation are asked of the
// coordinator only where its listing says it has them (a hitl hub's door:
// Request.Ends, Request.Conversation).
func (b *Backend) Features() client.Features {
	return client.Features{
		Notifier:       b, // change signals (the event stream)
		Ender:          b, // where a request says ends (EndsThreads)
		Conversational: b, // where a request says conversation
		Redactor:       b, // the journal hides credentials (transport.Conn)
		ReviewerNamer:  b, // with a token, the coordinator names the reviewer
	}
}
