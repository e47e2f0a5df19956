package review

import (
	"context"
	"fmt"
	"io"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/inert"
)

// Session is what a reviewer's command works with once its settings are
// resolved: the backend, what it offers, this machine's journal.
type Session struct {
	Backend  client.Backend
	Features client.Features // what the backend offers, asked once
	Journal  *journal.Journal
	// Reviewer and EditDialect are the decision pipeline's (Pipeline).
	Reviewer    string
	EditDialect string
	// Ruled: decisions go through a hub's door (--backend events), whose
	// team rule may record an approve as an approval rather than send it,
	// and which tells its rules only through an approval that stands.
	Ruled bool
	// Warnings is where a warning is said, once per problem (a hub's
	// source down, a state folder that cannot record); nil: nowhere.
	Warnings io.Writer
	// Reading: the id is looked up to be read (hitl show), not decided:
	// an interrupt that no longer waits is told as what became of it, not
	// as a decision refused.
	Reading bool
	// Waiting is what FindAll last read as waiting on the server (handled
	// ones left out), for checks across a thread before sending.
	Waiting []client.Interrupt
	// EndedTask tells an error of a backend's Task (an A2A task named by
	// its id) that says the task waits for no answer: its id and state.
	EndedTask func(error) (task, state string, ok bool)

	warned map[string]bool // the warnings said already
}

// safe makes backend text printable on one line.
var safe = inert.Line

// oneLine makes s printable on one line and cuts it to width cells.
func oneLine(s string, width int) string { return ansi.Truncate(safe(s), width, "…") }

// warn says msg on Warnings, once.
func (s *Session) warn(msg string) {
	if s.Warnings == nil || s.warned[msg] {
		return
	}
	if s.warned == nil {
		s.warned = map[string]bool{}
	}
	s.warned[msg] = true
	fmt.Fprintln(s.Warnings, "hitl: warning:", msg)
}

// Listing is the backend's listing. A hub that lists its inbox without one
// of its sources (its LangGraph server is down) lists the rest: that is
// said once as a warning, and the rest is the listing.
func (s *Session) Listing(ctx context.Context) ([]client.Interrupt, error) {
	all, err := s.Backend.Pending(ctx)
	return all, s.SourceDown(err)
}

// SourceDown says once that a source of a hub's inbox is down
// (client.SourceDown), which leaves the rest of the listing good: nil then,
// err otherwise.
func (s *Session) SourceDown(err error) error {
	if down, ok := client.DownSource(err); ok {
		s.warn(down.Error())
		err = nil
	}
	return err
}

// Pending lists what waits for a decision, less what this machine handled.
func (s *Session) Pending(ctx context.Context) ([]client.Interrupt, error) {
	all, err := s.Listing(ctx)
	if err != nil {
		return nil, err
	}
	return s.Unhandled(all), nil
}

// Unhandled is all as this machine shows it: recorded as seen, less what
// it handled (journal.Sift, as the TUI takes a listing).
func (s *Session) Unhandled(all []client.Interrupt) []client.Interrupt {
	return s.Sift(all).Items
}

// Sift is journal.Sift, warning when the sightings cannot be recorded.
func (s *Session) Sift(all []client.Interrupt) journal.Sifted {
	sifted := s.Journal.Sift(all)
	s.JournalWarn(sifted.SawErr, "one of them answered elsewhere may later be reported as unknown")
	return sifted
}

// JournalWarn warns, once per problem (watch lists again and again), of
// what the state folder failed to do and what it means.
func (s *Session) JournalWarn(err error, meaning string) {
	if err == nil {
		return
	}
	s.warn(fmt.Sprintf("%v: %s; free some space or fix the state folder's permissions (hitl config show names it)", err, meaning))
}

// Pipeline is the decision pipeline on this session's backend and journal.
func (s *Session) Pipeline() *decide.Pipeline {
	return &decide.Pipeline{Backend: s.Backend, Journal: s.Journal, Reviewer: s.Reviewer,
		Encoding: client.EncodeOptions{Dialect: client.EditDialect(s.EditDialect)}}
}
