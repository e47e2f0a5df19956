// Package review holds the rules a reviewer's command follows, whichever
// front end gives it: an id or a prefix resolved to the interrupt it names
// (or told as what became of it), a thread named by a prefix, the one bulk
// approve rule of the CLI and the TUI, the failed runs with this machine's
// decision, and what hitl check and hitl forget look up. It prints nothing
// but the warnings it is given a writer for: cmd/hitl words and prints the
// rest, and the TUI draws it.
package review
