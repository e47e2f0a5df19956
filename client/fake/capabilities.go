package fake

import "github.com/hitl-sh/hitl/client"

// Features: what the fake offers beyond client.Backend, so that the TUI's
// and decide's tests reach those features; the compiler checks each. A
// test that needs more (or fewer) wraps the fake and states its own.
func (f *Backend) Features() client.Features {
	return client.Features{
		Batcher:        f,
		Claimer:        f,
		Conversational: f,
		Ender:          f,
		FailureLister:  f,
	}
}
