package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/diff"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
)

// refreshDetail renders the selected interrupt into the detail viewport.
// It renders only when something it shows changed: polls and key presses
// come often, and a large payload takes tens of milliseconds to render.
func (m *Model) refreshDetail() {
	it := m.current()
	if it == nil {
		m.detail.SetContent("")
		m.detailKey = ""
		return
	}
	key := m.detailSignature(it)
	if key == m.detailKey {
		return
	}
	m.detailKey = key
	m.detail.SetContent(m.detailText(it, m.detail.Width()))
}

// detailSignature names everything detailText depends on.
func (m *Model) detailSignature(it *client.Interrupt) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%d|%v|%v|", it.ID, m.detail.Width(), m.showConv, m.sideBySide)
	if d := m.drafts[it.ID]; d != nil {
		fmt.Fprintf(&b, "slot%d|", d.slot)
		for _, x := range d.decisions {
			if x != nil {
				fmt.Fprintf(&b, "%s:%q:%s:%q|", x.Type, x.Message, x.Args, x.Answers)
			} else {
				b.WriteString("-|")
			}
		}
	}
	if c := m.conversation[it.ThreadID]; m.showConv && c != nil {
		fmt.Fprintf(&b, "conv%v|%v|%d", c.loading, c.err, len(c.messages))
	}
	return b.String()
}

func (m *Model) detailText(it *client.Interrupt, w int) string {
	w = max(w, 20)
	st := m.st
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	wrap := func(s string) string { return ansi.Wrap(s, w, " ") }

	line(st.title.Render(wrap(safeBlock(it.Title))))
	if warn := m.warning(it); warn != 0 {
		line(st.warn.Render(wrap("⚠ This interrupt contains " + warn.String() + ": shown as visible escapes (\\x1b, <U+202E>). Read it closely.")))
	}
	line(st.faint.Render(fmt.Sprintf("[%s] %s · thread %s", present.Badge(it.Schema), safe(present.ShortID(it.ID)), safe(it.ThreadID))))
	if it.Description != "" {
		line("")
		line(renderMarkdown(safeBlock(it.Description), w))
	}
	if len(it.Questions) > 0 {
		line("")
		line(st.bold.Render("Questions"))
		for i, q := range it.Questions {
			line(wrap(fmt.Sprintf("%d. %s", i+1, safeBlock(q))))
		}
	}
	d := m.drafts[it.ID]
	for i, a := range it.Actions {
		line("")
		marker := "  "
		slot := 0
		if d != nil {
			slot = d.slot
		}
		if slot == i && len(it.Actions) > 1 {
			marker = "▸ "
		}
		head := fmt.Sprintf("%sAction %d/%d  %s", marker, i+1, len(it.Actions), safe(a.Name))
		line(st.bold.Render(head) + "  " + st.faint.Render("allowed: "+typesText(a.Allowed)))
		if d != nil && d.decisions[i] != nil {
			line("  decision: " + m.decisionText(d.decisions[i]))
		}
		if a.Description != "" && a.Description != it.Description {
			line(indentBlock(renderMarkdown(safeBlock(a.Description), w-2), "  "))
		}
		switch {
		case d != nil && d.decisions[i] != nil && d.decisions[i].Type == client.Edit:
			line(indentBlock(m.diffView(a.Args, d.decisions[i].Args, w-2), "  "))
		case len(a.Example) > 0:
			line(st.faint.Render("  proposed, against its example:"))
			line(indentBlock(m.diffView(a.Example, a.Args, w-2), "  "))
		default:
			line(indentBlock(m.highlightJSON(a.Args, w-2), "  "))
		}
	}
	if len(it.Actions) == 0 {
		line("")
		line(st.faint.Render("allowed: " + typesText(it.Allowed)))
		if d != nil && d.decisions[0] != nil {
			line("decision: " + m.decisionText(d.decisions[0]))
		}
		if it.Schema == client.SchemaRaw {
			line(st.bold.Render("Value"))
			line(m.highlightJSON(it.Raw, w))
		}
	}
	if len(it.Context) > 0 {
		line("")
		line(st.bold.Render("Context"))
		line(m.highlightJSON(it.Context, w))
	}
	if it.Compare != nil {
		line("")
		line(m.compareView(it.Compare, w))
	}
	line("")
	line(st.faint.Render(wrap(fmt.Sprintf("graph %s · assistant %s", safe(it.GraphID), safe(it.AssistantID)))))
	line(st.faint.Render(fmt.Sprintf("created %s · updated %s", stamp(it.CreatedAt), stamp(it.UpdatedAt))))
	line(st.faint.Render("id " + safe(it.ID)))
	if _, ok := m.opts.Backend.(client.Conversational); ok {
		if m.showConv {
			line("")
			line(m.conversationText(it.ThreadID, w))
		} else {
			line(st.faint.Render("c shows the conversation"))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func (m *Model) decisionText(d *client.Decision) string {
	s := string(d.Type)
	if d.Message != "" {
		s += ": " + safe(d.Message)
	}
	if len(d.Answers) > 0 {
		s += fmt.Sprintf(" (%d answers)", len(d.Answers))
	}
	return m.st.ok.Render(s)
}

func (m *Model) conversationText(thread string, w int) string {
	c := m.conversation[thread]
	switch {
	case c == nil || c.loading:
		return "Loading the conversation…"
	case c.err != nil:
		return m.st.err.Render("Conversation: " + safe(c.err.Error()))
	case len(c.messages) == 0:
		return "The thread has no messages."
	}
	const last = 10
	msgs := c.messages
	var b strings.Builder
	b.WriteString(m.st.bold.Render(fmt.Sprintf("Conversation (last %d of %d)", min(last, len(msgs)), len(msgs))) + "\n")
	if len(msgs) > last {
		msgs = msgs[len(msgs)-last:]
	}
	for _, msg := range msgs {
		b.WriteString(m.st.faint.Render(safe(msg.Role)+":") + " " + ansi.Wrap(safeBlock(msg.Content), w-2, " ") + "\n")
		for _, tc := range msg.ToolCalls {
			b.WriteString("  → " + ansi.Truncate(safe(tc), w-4, "…") + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// maxHighlight is the largest JSON text that is coloured; larger is shown plain.
const maxHighlight = 256 << 10

// highlightJSON pretty-prints JSON (key order and numbers kept; characters a
// terminal would act on escaped) and colours its tokens. Lines wider than w
// wrap rather than being cut.
func (m *Model) highlightJSON(raw json.RawMessage, w int) string {
	text := string(inert.JSON([]byte(indentJSON(raw))))
	lexer := lexers.Get("json")
	if lexer == nil || len(text) > maxHighlight {
		return ansi.Wrap(text, w, "")
	}
	iter, err := lexer.Tokenise(nil, text)
	if err != nil {
		return ansi.Wrap(text, w, "")
	}
	var b strings.Builder
	for _, tok := range iter.Tokens() {
		b.WriteString(m.tokenStyle(tok.Type).Render(tok.Value))
	}
	return ansi.Wrap(b.String(), w, "")
}

func (m *Model) tokenStyle(t chroma.TokenType) lipgloss.Style {
	switch {
	case t == chroma.NameTag:
		return m.st.jsonKey
	case t.InCategory(chroma.LiteralString):
		return m.st.jsonString
	case t.InCategory(chroma.LiteralNumber):
		return m.st.jsonNumber
	case t == chroma.KeywordConstant:
		return m.st.jsonLiteral
	}
	return m.st.jsonPunct
}

// diffView shows an edit: the structural summary over the line diff of the
// canonical JSON, unified or side by side (where it fits).
func (m *Model) diffView(before, after json.RawMessage, w int) string {
	a, err1 := diff.Canonical(before)
	b, err2 := diff.Canonical(after)
	if err1 != nil || err2 != nil {
		return m.highlightJSON(after, w)
	}
	a = string(inert.JSON([]byte(a)))
	b = string(inert.JSON([]byte(b)))
	var out strings.Builder
	changes, _ := diff.Structural(before, after)
	var parts []string
	for _, c := range changes {
		parts = append(parts, safe(c.String()))
	}
	if len(parts) == 0 {
		parts = []string{"no change"}
	}
	out.WriteString(m.st.bold.Render(ansi.Wrap("Changed: "+strings.Join(parts, ", "), w, " ")) + "\n")
	lines := diff.Lines(a, b)
	if m.sideBySide && w >= 60 {
		out.WriteString(m.sideBySideDiff(lines, w))
	} else {
		for _, l := range lines {
			out.WriteString(ansi.Wrap(m.diffLine(l), w, "") + "\n")
		}
	}
	return strings.TrimRight(out.String(), "\n")
}

func (m *Model) diffLine(l diff.Line) string {
	switch l.Op {
	case diff.Delete:
		return m.st.removed.Render("- ") + m.marked(l, m.st.removed, m.st.removedWord)
	case diff.Insert:
		return m.st.added.Render("+ ") + m.marked(l, m.st.added, m.st.addedWord)
	}
	return "  " + l.Text
}

// marked styles a changed line, with its changed span stood out and, for
// terminals without colour, bracketed.
func (m *Model) marked(l diff.Line, base, word lipgloss.Style) string {
	s, e := l.Span[0], l.Span[1]
	if e <= s || e > len(l.Text) {
		return base.Render(l.Text)
	}
	return base.Render(l.Text[:s]) + word.Render("["+l.Text[s:e]+"]") + base.Render(l.Text[e:])
}

func (m *Model) sideBySideDiff(lines []diff.Line, w int) string {
	col := (w - 3) / 2
	var left, right []string
	flush := func(dels, ins []diff.Line) {
		for i := 0; i < max(len(dels), len(ins)); i++ {
			l, r := "", ""
			if i < len(dels) {
				l = m.st.removed.Render("-") + m.marked(dels[i], m.st.removed, m.st.removedWord)
			}
			if i < len(ins) {
				r = m.st.added.Render("+") + m.marked(ins[i], m.st.added, m.st.addedWord)
			}
			left, right = append(left, l), append(right, r)
		}
	}
	var dels, ins []diff.Line
	for _, l := range lines {
		switch l.Op {
		case diff.Delete:
			dels = append(dels, l)
		case diff.Insert:
			ins = append(ins, l)
		default:
			flush(dels, ins)
			dels, ins = nil, nil
			left, right = append(left, " "+l.Text), append(right, " "+l.Text)
		}
	}
	flush(dels, ins)
	var b strings.Builder
	b.WriteString(m.st.faint.Render(pad("proposed", col)+" │ "+"edited") + "\n")
	for i := range left {
		b.WriteString(pad(ansi.Truncate(left[i], col, "…"), col) + " │ " + ansi.Truncate(right[i], col, "…") + "\n")
	}
	return b.String()
}

func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}

func indentBlock(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = prefix + lines[i]
	}
	return strings.Join(lines, "\n")
}

// compareView shows two texts side by side where they fit, else one above
// the other; both are wrapped, never cut.
func (m *Model) compareView(c *client.Comparison, w int) string {
	left, right := safeBlock(c.Left), safeBlock(c.Right)
	if w < 80 {
		return m.st.bold.Render(safe(c.LeftLabel)) + "\n" + ansi.Wrap(left, w, " ") + "\n\n" +
			m.st.bold.Render(safe(c.RightLabel)) + "\n" + ansi.Wrap(right, w, " ")
	}
	col := (w - 3) / 2
	l := strings.Split(ansi.Wrap(left, col, " "), "\n")
	r := strings.Split(ansi.Wrap(right, col, " "), "\n")
	var b strings.Builder
	b.WriteString(m.st.bold.Render(pad(safe(c.LeftLabel), col)) + " │ " + m.st.bold.Render(safe(c.RightLabel)) + "\n")
	for i := 0; i < max(len(l), len(r)); i++ {
		x, y := "", ""
		if i < len(l) {
			x = l[i]
		}
		if i < len(r) {
			y = r[i]
		}
		b.WriteString(pad(x, col) + " │ " + y + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
