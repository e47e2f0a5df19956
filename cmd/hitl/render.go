package main

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/redact"
	"github.com/hitl-sh/hitl/watchexec"
)

// safe and safeBlock make backend text printable (one line; lines kept).
var (
	safe      = inert.Line
	safeBlock = inert.Block
)

// oneLine makes s printable on one line and cuts it to width cells.
func oneLine(s string, width int) string {
	return ansi.Truncate(safe(s), width, "…")
}

// termWidth is the width of the terminal w writes to, or 0 when w is not a
// terminal (a pipe, a file, a test).
func termWidth(w io.Writer) int {
	if o, ok := w.(*termOut); ok {
		return o.width()
	}
	return 0
}

// printList prints the inbox as a table (present.List), to the width of
// the terminal w writes to, if any.
func printList(w io.Writer, its []client.Interrupt, now time.Time) {
	present.List(w, its, now, termWidth(w))
}

// printLine is one interrupt's row of the list and of watch (present.Row).
func printLine(w io.Writer, it client.Interrupt, now time.Time) {
	present.Row(w, it, now, termWidth(w))
}

// writeJSON prints v as JSON (present.WriteJSON).
var writeJSON = present.WriteJSON

// printShow prints one interrupt in full (present.Show; schemas: with its
// schemas in full, present.ShowSchemas), and where the command it
// suggests lacks the URL's credentials, says so.
func printShow(w io.Writer, it client.Interrupt, again, me string, schemas bool) {
	if schemas {
		present.ShowSchemas(w, it, again, me)
	} else {
		present.Show(w, it, again, me)
	}
	if strings.Contains(again, redact.Mark) {
		fmt.Fprintf(w, "(hitl never prints the URL's credentials: put yours back where it says %s)\n", redact.Mark)
	}
}

// again is hitl as this command was called, with the flags that said
// where (--profile, --backend, --url), so that a command it suggests
// works as printed: "hitl --backend events". Userinfo and credential-
// looking parameters of the URL are not repeated (redact.URL).
func (e *env) again() string {
	out := "hitl"
	for _, f := range [][2]string{{"--profile", e.flags.Profile}, {"--backend", e.flags.Backend}, {"--url", redact.URL(e.flags.URL)}} {
		if f[1] != "" {
			out += " " + f[0] + " " + present.ShellWord(safe(f[1]))
		}
	}
	return out
}

func indent(s, prefix string) string { return present.Indent(strings.TrimRight(s, "\n"), prefix) }

// printRaw prints the interrupt's value as the server sent it (for an
// unreadable one, the bytes of the entry hitl could not read). Into a file
// or a pipe the bytes go out exactly, for jq or a hex dump; a terminal gets
// them inert: the same JSON with what a terminal would act on or hide
// written as \uXXXX escapes (bytes that are not UTF-8 as \xNN).
func printRaw(e *env, it client.Interrupt) error {
	b := it.Bytes
	if b == nil {
		b = it.Raw
	}
	if w := e.stdout.exact(); w != nil {
		if _, err := w.Write(b); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n")
		return err
	}
	if utf8.Valid(b) {
		b = inert.JSON(b)
	}
	_, err := fmt.Fprintf(e.stdout, "%s\n", b)
	return err
}

// newExecHook is watch --exec's runner (watchexec.New); a command line it
// refuses is a usage error.
func newExecHook(command, shellCmd string, timeout time.Duration, stderr io.Writer, environ func() []string) (*watchexec.Runner, error) {
	h, err := watchexec.New(command, shellCmd, timeout, stderr, environ)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return h, nil
}
