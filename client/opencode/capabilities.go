package opencode

import "github.com/hitl-sh/hitl/client"

// What this backend offers beyond client.Backend (the table is in
// ARCHITECTURE.md). Callers find these by type assertion: a method renamed
// here would turn a feature off without a word, so the compiler checks.
var (
	_ client.Backend  = (*Backend)(nil)
	_ client.Notifier = (*Backend)(nil) // change signals (the event stream)

	_ interface{ Redact(string) string } = (*Backend)(nil) // the journal hides credentials
)
