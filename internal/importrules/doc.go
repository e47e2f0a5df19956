// Package importrules holds the test that the import rules ARCHITECTURE.md
// states hold for the code: packages depend downward, the client model and
// the backends know nothing above them, and the TUI never reaches a backend.
package importrules
