package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"
)

// Run opens the app on the terminal and returns when the reviewer quits. The
// terminal is restored on quit, on ctrl+c and on a panic (Bubble Tea's own
// panic handler).
func Run(ctx context.Context, opts Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts.Context = ctx
	m, err := New(opts)
	if err != nil {
		return err
	}
	p := tea.NewProgram(m, tea.WithContext(ctx))
	_, err = p.Run()
	if err == tea.ErrProgramKilled && ctx.Err() != nil {
		return nil
	}
	return err
}
