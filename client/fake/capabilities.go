package fake

import "github.com/hitl-sh/hitl/client"

// What the fake offers beyond client.Backend, so that the TUI's and
// decide's tests reach those features; the compiler checks.
var (
	_ client.Backend        = (*Backend)(nil)
	_ client.Batcher        = (*Backend)(nil)
	_ client.Claimer        = (*Backend)(nil)
	_ client.Conversational = (*Backend)(nil)
	_ client.FailureLister  = (*Backend)(nil)
)
