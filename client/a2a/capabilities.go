package a2a

import "github.com/hitl-sh/hitl/client"

// Features: what this backend offers beyond client.Backend (the table is
// in ARCHITECTURE.md), every one of them; the compiler checks each.
func (b *Backend) Features() client.Features {
	return client.Features{
		Redactor:  b, // the journal hides credentials (transport.Conn)
		Messenger: b, // the A2A message around an answer, shown before it goes
	}
}
