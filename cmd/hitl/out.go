package main

import (
	"io"
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/hitl-sh/hitl/inert"
)

// termOut is the only way the CLI writes to standard output and standard
// error: whatever is written, a server's text included, goes out by
// inert's rules (control characters, escape sequences, bidi overrides and
// invisible characters become visible escapes; newlines and tabs stay), and
// with the configured credentials hidden. hitl's own output holds no escape
// sequence of its own, so nothing of it is lost; JSON output was made inert
// already (\uXXXX escapes) and passes unchanged, still valid JSON.
//
// So a future fmt.Fprintln(e.stderr, err) cannot put a server's bytes on the
// terminal. The one way around it is exact, for `show --raw` into a file
// or a pipe. TestNoDirectTerminalWrites keeps the rest of cmd/hitl off
// os.Stdout and os.Stderr.
type termOut struct {
	w io.Writer
	// fd is set when w is a terminal.
	fd  uintptr
	tty bool
	// hide replaces the configured credentials (see env.hideSecrets).
	hide func(string) string
}

// newTermOut wraps w. A test stands for a terminal with a writer that has
// IsTerminal() true.
func newTermOut(w io.Writer) *termOut {
	o := &termOut{w: w}
	switch f := w.(type) {
	case *os.File:
		if term.IsTerminal(f.Fd()) {
			o.fd, o.tty = f.Fd(), true
		}
	case interface{ IsTerminal() bool }:
		o.tty = f.IsTerminal()
	}
	return o
}

// Write writes p made inert. It reports len(p) written when all of the
// inert text went out, as callers expect of an io.Writer.
func (o *termOut) Write(p []byte) (int, error) {
	s := inert.Block(string(p))
	if o.hide != nil {
		s = o.hide(s)
	}
	if _, err := io.WriteString(o.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// width is the terminal's width, or 0 when the output is not a terminal (a
// pipe, a file, a test).
func (o *termOut) width() int {
	if !o.tty || o.fd == 0 {
		return 0
	}
	w, _, err := term.GetSize(o.fd)
	if err != nil || w <= 0 {
		return 0
	}
	return w
}

// exact is the underlying writer, for bytes that must go out exactly as a
// server sent them, and only when it is not a terminal: nil on a terminal.
// Its one user is `hitl show ID --raw > file`.
func (o *termOut) exact() io.Writer {
	if o.tty {
		return nil
	}
	return o.w
}
