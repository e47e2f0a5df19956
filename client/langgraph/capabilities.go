package langgraph

import "github.com/hitl-sh/hitl/client"

// What this backend offers beyond client.Backend (the table is in
// ARCHITECTURE.md). Callers find these by type assertion: a method renamed
// here would turn a feature off without a word, so the compiler checks.
var (
	_ client.Attentive      = (*Backend)(nil) // looks seldom while no reviewer is there (stream.go)
	_ client.Backend        = (*Backend)(nil)
	_ client.Batcher        = (*Backend)(nil) // several branches in one resume
	_ client.Claimer        = (*Backend)(nil) // team presence (claims.go)
	_ client.Conversational = (*Backend)(nil) // hitl conversation
	_ client.FailureLister  = (*Backend)(nil) // runs that failed (failed.go)
	_ client.Notifier       = (*Backend)(nil) // change signals (stream.go)
	_ client.Progressive    = (*Backend)(nil) // long listings show progress

	_ interface{ Redact(string) string } = (*Backend)(nil) // the journal hides credentials
)
