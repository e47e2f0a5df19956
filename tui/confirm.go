package tui

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
)

// confirmView shows, before anything is sent, the decision per action, the
// diff of every edit, what the server will do that may surprise, and on `v`
// the exact resume JSON.
func (m Model) confirmView() string {
	w := m.width
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	it, sub, err := m.confirmed()
	if it == nil {
		return "\n  " + m.st.err.Render(safe(err.Error())) + "\n  esc goes back."
	}
	items := []client.Item{{Interrupt: *it}}
	if sub != nil {
		items = sub.Items
	}
	line(m.st.title.Render(ansi.Truncate("Send this? "+safe(it.Title), w, "…")))
	line(m.st.faint.Render(fmt.Sprintf("interrupt %s · thread %s · graph %s", safe(present.ShortID(it.ID)), safe(it.ThreadID), safe(it.GraphID))))
	if len(items) > 1 {
		line(m.st.bold.Render(ansi.Wrap(fmt.Sprintf("One resume answers %d interrupts of this thread (every one with a complete draft):", len(items)), w, " ")))
	}
	for n, x := range items {
		x := x
		target := &x.Interrupt
		if len(items) > 1 {
			line("")
			line(m.st.bold.Render(fmt.Sprintf("%d. %s  %s", n+1, safe(present.ShortID(target.ID)), safe(target.Title))))
		}
		if warn := m.warning(target); warn != 0 {
			line(m.st.warn.Render("⚠ the payload contains " + warn.String()))
		}
		line("")
		d := m.draftFor(target)
		for i, dec := range d.decisions {
			if dec == nil {
				continue
			}
			name := "decision"
			if len(target.Actions) > 0 {
				name = fmt.Sprintf("Action %d/%d %s", i+1, len(target.Actions), safe(target.Actions[i].Name))
			}
			line(m.st.bold.Render(name) + ": " + m.decisionText(dec))
			if dec.Type == client.Edit && len(target.Actions) > 0 {
				line(indentBlock(m.diffView(target.Actions[i].Args, dec.Args, w-4), "    "))
			}
			for j, a := range dec.Answers {
				line(fmt.Sprintf("    answer %d: %s", j+1, safe(a)))
			}
		}
		if target.Busy {
			line(m.st.warn.Render(ansi.Wrap("Note: a run is in progress on this thread; the server refuses a decision until it ends.", w, " ")))
		}
		if sub != nil {
			for _, note := range client.Consequences(&target.Payload, x.Decisions) {
				line("")
				line(m.st.warn.Render(ansi.Wrap("Note: "+note, w, " ")))
			}
		}
	}
	if err != nil {
		line("")
		line(m.st.err.Render(ansi.Wrap("✗ Cannot send: "+safe(err.Error()), w, " ")))
		line("esc goes back to change the decision.")
		return b.String()
	}
	if m.confirmError != "" {
		line("")
		line(m.st.err.Render(ansi.Wrap("✗ "+safe(m.confirmError), w, " ")))
	}
	line("")
	if m.showJSON {
		for _, x := range sub.Items {
			if len(sub.Items) > 1 {
				line(m.st.bold.Render("Resume value for " + safe(x.Interrupt.ID) + ", exactly as sent:"))
			} else {
				line(m.st.bold.Render("Resume value, exactly as sent:"))
			}
			if x.Resume.Continue {
				line("(none: the run continues from the breakpoint with no input)")
			} else {
				line(m.highlightJSON(x.Resume.Value, w))
			}
		}
	} else {
		line(m.st.faint.Render("v shows the exact resume JSON"))
	}
	line("")
	line(m.st.bold.Render("y or enter sends it once · esc goes back (nothing is lost)"))
	return b.String()
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format(time.DateTime)
}

// Past these sizes markdown is not rendered (see renderMarkdown).
const (
	maxMarkdown      = 16 << 10
	maxMarkdownLines = 200
)

var (
	mdMu        sync.Mutex
	mdRenderers = map[int]*glamour.TermRenderer{}
	mdCache     = map[string]string{}
)

// renderMarkdown renders already-inert markdown to width w. On any error it
// falls back to the wrapped text, so nothing is lost.
func renderMarkdown(s string, w int) string {
	// A huge description is shown as plain wrapped text: rendering it line
	// by line would stall the screen, and nothing may be cut.
	if len(s) > maxMarkdown || strings.Count(s, "\n") > maxMarkdownLines {
		return ansi.Wrap(s, w, " ")
	}
	mdMu.Lock()
	defer mdMu.Unlock()
	k := fmt.Sprintf("%d\x00%s", w, s)
	if out, ok := mdCache[k]; ok {
		return out
	}
	r := mdRenderers[w]
	if r == nil {
		var err error
		r, err = glamour.NewTermRenderer(glamour.WithStandardStyle("dark"), glamour.WithWordWrap(max(w-4, 10)))
		if err != nil {
			return ansi.Wrap(s, w, " ")
		}
		mdRenderers[w] = r
	}
	out, err := renderLines(r, s)
	if err != nil {
		return ansi.Wrap(s, w, " ")
	}
	// The renderer must not bring back what inert removed.
	if inert.Check(ansi.Strip(out)) != 0 {
		out = ansi.Wrap(s, w, " ")
	}
	if len(mdCache) > 256 {
		clear(mdCache)
	}
	mdCache[k] = out
	return out
}

// renderLines renders markdown one line at a time: agents write
// descriptions as plain lines ("Tool: x", "Args: {…}"), and a paragraph
// renderer would run them together. Fenced code is kept as it is.
func renderLines(r *glamour.TermRenderer, s string) (string, error) {
	var out []string
	fenced := false
	for _, l := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "```"):
			fenced = !fenced
		case fenced:
			out = append(out, "  "+l)
		case strings.TrimSpace(l) == "":
			out = append(out, "")
		default:
			x, err := r.Render(l)
			if err != nil {
				return "", err
			}
			for _, rl := range strings.Split(strings.Trim(x, "\n"), "\n") {
				if strings.TrimSpace(ansi.Strip(rl)) != "" {
					out = append(out, strings.TrimRight(rl, " "))
				}
			}
		}
	}
	return strings.Join(out, "\n"), nil
}
