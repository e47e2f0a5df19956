package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
)

// signalQuitMsg asks the app to end as ctrl+c does (the terminal hung up,
// or hitl was told to stop).
type signalQuitMsg struct{}

// Stop is the message that ends the app as ctrl+c does (a decision being
// sent is recorded first): what a host of many sessions (hitl serve) sends
// to each when it shuts down or a session idles out.
func Stop() tea.Msg { return signalQuitMsg{} }

// TeamChanged is the message that tells a running app that its host's
// team was reloaded: the reviewer's role and the rules in force are read
// again (Options.MayDecide, Options.ApprovalsNeeded) and the screen
// redrawn at once, not at the next change of the inbox.
func TeamChanged() tea.Msg { return teamChangedMsg{} }

type teamChangedMsg struct{}

// NewProgram is the program that runs m (made by New) with opts, its
// renderer paced (pacer.go) as Run's is: what a host of many sessions (hitl
// serve) runs, so that an idle session wakes once a second, not at the frame
// rate. It sets the frame rate.
func NewProgram(m *Model, opts ...tea.ProgramOption) *tea.Program {
	p := tea.NewProgram(m, append(opts, tea.WithFPS(frameRate()))...)
	m.pace.program = p
	return p
}

// Run opens the app on the terminal and returns when the reviewer quits. The
// terminal is restored on quit, on ctrl+c and on a panic (Bubble Tea's own
// panic handler). When ctx ends (SIGHUP from a dropped SSH session,
// SIGTERM), the app ends as on ctrl+c: a decision being sent is recorded
// first, for at most a few seconds.
func Run(ctx context.Context, opts Options) error {
	bg, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts.Context = bg
	m, err := New(opts)
	if err != nil {
		return err
	}
	// Signals come through ctx (main listens for SIGINT, SIGTERM, SIGHUP), so
	// that they end the app the way ctrl+c does rather than at once.
	p := NewProgram(m, tea.WithoutSignalHandler())
	go func() {
		select {
		case <-ctx.Done():
		case <-bg.Done():
			return
		}
		p.Send(signalQuitMsg{})
		select {
		case <-time.After(10 * time.Second):
			p.Kill()
		case <-bg.Done():
		}
	}()
	final, err := p.Run()
	if err == tea.ErrProgramKilled && ctx.Err() != nil {
		return nil
	}
	if fm, ok := final.(*Model); ok && err == nil {
		if e, failed := fm.journalErrs[problemDrafts]; failed {
			return fmt.Errorf("your drafts could not be saved before quitting: %s: the next start will not show them", e)
		}
	}
	return err
}
