package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"charm.land/glamour/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/diff"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
)

// Renderers the screens share: JSON, diffs, side-by-side texts, markdown.
// They are pure: text in, text out, and read nothing of the live model but
// a look (a copy of what decides how things look), so that a large detail
// can be rendered off the update path.

// look is what rendering depends on besides the content.
type look struct {
	st         styles
	sideBySide bool
	theme      string
	keys       keyMap
}

func (m *Model) look() look {
	return look{st: m.st, sideBySide: m.sideBySide, theme: m.theme, keys: m.keys}
}

// maxHighlight is the largest JSON text that is coloured; larger is shown
// plain (colouring costs per token).
const maxHighlight = 256 << 10

// maxShownString is the most of any one string a screen shows: past it the
// string is folded, with a note saying how much more there is and how to
// see it all.
const maxShownString = 64 << 10

// fold keeps the first maxShownString bytes of a text (cut where a
// character starts) and says how much more there is and how to see it, in
// the words of the JSON folds: a 10 MB prompt or description is not laid
// out, styled and kept on screen whole, and nothing is cut without a note.
func fold(s, see string) string {
	if len(s) <= maxShownString {
		return s
	}
	cut := maxShownString
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n… " + present.Size(len(s)-cut) + " more not shown (" + see + ")"
}

// highlightJSON shows JSON for reading (key order and numbers kept; strings
// decoded but for what a terminal would act on or hide; linear whatever the
// depth) and colours its tokens. Lines wider than w wrap rather than being
// cut; see is how to read what a fold leaves out.
func (lo look) highlightJSON(raw json.RawMessage, w int, see string) string {
	text, ok := lo.colouredJSON(raw, see)
	if !ok {
		return ansi.Wrap(safeBlock(string(raw)), w, "")
	}
	return ansi.Wrap(text, w, "")
}

// exactJSON is highlightJSON for the value exactly as sent: a line wider
// than w is broken at w-1 cells, every character kept (no space dropped
// at a break), and each row that goes on ends with a faint ↩.
func (lo look) exactJSON(raw json.RawMessage, w int) string {
	text, ok := lo.colouredJSON(raw, "")
	if !ok {
		text = safeBlock(string(raw))
	}
	return lo.markedWrap(text, w)
}

// wrapMark ends a row that the next one continues (exactJSON).
const wrapMark = "↩"

// markedWrap breaks each line of s wider than w into rows of w-1 cells,
// each but the last ending with wrapMark.
func (lo look) markedWrap(s string, w int) string {
	w = max(w, 2)
	lines := strings.Split(s, "\n")
	var out []string
	for _, l := range lines {
		if ansi.StringWidth(l) <= w {
			out = append(out, l)
			continue
		}
		rows := strings.Split(ansi.Hardwrap(l, w-1, true), "\n")
		for i, r := range rows {
			if i < len(rows)-1 {
				r += lo.st.faint.Render(wrapMark)
			}
			out = append(out, r)
		}
	}
	return strings.Join(out, "\n")
}

// colouredJSON is raw formatted for reading, coloured; false: not JSON.
func (lo look) colouredJSON(raw json.RawMessage, see string) (string, bool) {
	var b strings.Builder
	colour := len(raw) <= maxHighlight
	err := present.FormatJSON(raw, present.JSONOptions{MaxString: maxShownString, FoldHint: see}, func(k present.JSONKind, s string) {
		if colour || k == present.JSONNote {
			s = lo.jsonStyle(k).Render(s)
		}
		b.WriteString(s)
	})
	return b.String(), err == nil
}

func (lo look) jsonStyle(k present.JSONKind) lipgloss.Style {
	switch k {
	case present.JSONKey:
		return lo.st.jsonKey
	case present.JSONString:
		return lo.st.jsonString
	case present.JSONNumber:
		return lo.st.jsonNumber
	case present.JSONLiteral:
		return lo.st.jsonLiteral
	case present.JSONNote:
		return lo.st.faint
	}
	return lo.st.jsonPunct
}

// diffView shows an edit: the structural summary over the line diff of the
// canonical JSON, unified or side by side (where it fits).
func (lo look) diffView(before, after json.RawMessage, w int) string {
	a, err1 := diff.Canonical(before)
	b, err2 := diff.Canonical(after)
	if err1 != nil || err2 != nil {
		return lo.highlightJSON(after, w, "")
	}
	a = string(inert.JSON([]byte(a)))
	b = string(inert.JSON([]byte(b)))
	var out strings.Builder
	changes, _ := diff.Structural(before, after)
	var parts []string
	for _, c := range changes {
		// "Changed:" says it once: "$.to", not "$.to changed"; an added or
		// removed path keeps its word.
		part := c.String()
		if c.Kind == diff.Changed {
			part = c.Path
		}
		parts = append(parts, safe(part))
	}
	if len(parts) == 0 {
		parts = []string{"no change"}
	}
	out.WriteString(lo.st.bold.Render(ansi.Wrap("Changed: "+strings.Join(parts, ", "), w, " ")) + "\n")
	lines := diff.Lines(a, b)
	if lo.sideBySide && w >= sideBySideFrom {
		out.WriteString(lo.sideBySideDiff(lines, w))
	} else {
		for _, l := range lines {
			out.WriteString(lo.diffRows(l, w) + "\n")
		}
	}
	return strings.TrimRight(out.String(), "\n")
}

// diffRows is a line of the unified diff wrapped to w, each row with its
// line's sign: a long changed line read without colour still says, row by
// row, which side it is on. Each row is styled on its own, so that no
// style runs from one row into the next.
func (lo look) diffRows(l diff.Line, w int) string {
	sign := "  "
	switch l.Op {
	case diff.Delete:
		sign = "- "
	case diff.Insert:
		sign = "+ "
	}
	return strings.Join(lo.signedRows(l, w, sign), "\n")
}

// signedRows is l wrapped to w cells, sign included, each row starting
// with sign and styled on its own (what diffRows and the side-by-side
// columns are made of).
func (lo look) signedRows(l diff.Line, w int, sign string) []string {
	var base, word lipgloss.Style
	switch l.Op {
	case diff.Delete:
		base, word = lo.st.removed, lo.st.removedWord
	case diff.Insert:
		base, word = lo.st.added, lo.st.addedWord
	default:
		return strings.Split(indentBlock(ansi.Wrap(l.Text, max(w-len(sign), 1), ""), sign), "\n")
	}
	text, from, to := l.Text, 0, 0
	if s, e := l.Span[0], l.Span[1]; l.Op != diff.Same && e > s && e <= len(l.Text) {
		text, from, to = l.Text[:s]+"["+l.Text[s:e]+"]"+l.Text[e:], s, e+2
	}
	var rows []string
	at := 0
	for _, row := range strings.Split(ansi.Wrap(text, max(w-len(sign), 1), ""), "\n") {
		var b strings.Builder
		b.WriteString(base.Render(sign))
		// The row's place in text: wrapping only breaks lines and drops
		// the spaces it breaks at.
		off := at
		if k := strings.Index(text[at:], row); k >= 0 && row != "" {
			off = at + k
		}
		end := min(off+len(row), len(text))
		at = end
		// Before the changed span, in it (bracketed), after it.
		for i, seg := range [][2]int{{off, min(max(from, off), end)}, {max(from, off), min(to, end)}, {max(to, off), end}} {
			st := base
			if i == 1 {
				st = word
			}
			if seg[1] > seg[0] {
				b.WriteString(st.Render(text[seg[0]:seg[1]]))
			}
		}
		rows = append(rows, b.String())
	}
	return rows
}

// sideBySideFrom is the narrowest diff laid out side by side; below, the
// diff is unified whatever t chose.
const sideBySideFrom = 60

func (lo look) sideBySideDiff(lines []diff.Line, w int) string {
	col := (w - 3) / 2
	var left, right []string
	// Each side wraps within its column, every row with its sign and
	// styled on its own: the changed value itself must be read whole, and
	// no colour runs across the separator into the other side.
	rows := func(l diff.Line, sign string) string { return strings.Join(lo.signedRows(l, col, sign), "\n") }
	flush := func(dels, ins []diff.Line) {
		for i := 0; i < max(len(dels), len(ins)); i++ {
			l, r := "", ""
			if i < len(dels) {
				l = rows(dels[i], "-")
			}
			if i < len(ins) {
				r = rows(ins[i], "+")
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
			same := rows(l, " ")
			left, right = append(left, same), append(right, same)
		}
	}
	flush(dels, ins)
	var b strings.Builder
	b.WriteString(lo.st.faint.Render(pad("proposed", col)+" │ "+"edited") + "\n")
	for i := range left {
		b.WriteString(columns(left[i], right[i], col) + "\n")
	}
	return b.String()
}

// columns sets two texts side by side, the left one padded to col cells.
func columns(left, right string, col int) string {
	l, r := strings.Split(left, "\n"), strings.Split(right, "\n")
	var b strings.Builder
	for i := 0; i < max(len(l), len(r)); i++ {
		x, y := "", ""
		if i < len(l) {
			x = l[i]
		}
		if i < len(r) {
			y = r[i]
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(pad(x, col) + " │ " + y)
	}
	return b.String()
}

func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}

func indentBlock(s, prefix string) string { return present.Indent(s, prefix) }

// compareView shows two texts side by side where they fit, else one above
// the other; both are wrapped, never cut.
func (lo look) compareView(c *client.Comparison, w int) string {
	left, right := safeBlock(c.Left), safeBlock(c.Right)
	if w < 80 {
		return lo.st.bold.Render(safe(c.LeftLabel)) + "\n" + ansi.Wrap(left, w, " ") + "\n\n" +
			lo.st.bold.Render(safe(c.RightLabel)) + "\n" + ansi.Wrap(right, w, " ")
	}
	col := (w - 3) / 2
	return lo.st.bold.Render(pad(safe(c.LeftLabel), col)) + " │ " + lo.st.bold.Render(safe(c.RightLabel)) + "\n" +
		columns(ansi.Wrap(left, col, " "), ansi.Wrap(right, col, " "), col)
}

// Past these sizes markdown is not rendered (see renderMarkdown).
const (
	maxMarkdown      = 16 << 10
	maxMarkdownLines = 200
)

var (
	mdMu        sync.Mutex
	mdRenderers = map[string]*glamour.TermRenderer{}
	mdCache     = map[string]string{}
)

// renderMarkdown renders already-inert markdown to width w. On any error it
// falls back to the wrapped text, so nothing is lost.
func renderMarkdown(s, theme string, w int) string {
	// A huge description is shown as plain wrapped text: rendering it line
	// by line would stall the screen, and nothing may be cut.
	if len(s) > maxMarkdown || strings.Count(s, "\n") > maxMarkdownLines {
		return ansi.Wrap(s, w, " ")
	}
	mdMu.Lock()
	defer mdMu.Unlock()
	k := fmt.Sprintf("%d\x00%s\x00%s", w, theme, s)
	if out, ok := mdCache[k]; ok {
		return out
	}
	rk := fmt.Sprintf("%s/%d", theme, w)
	r := mdRenderers[rk]
	if r == nil {
		var err error
		r, err = glamour.NewTermRenderer(glamour.WithStandardStyle(theme), glamour.WithWordWrap(max(w-4, 10)))
		if err != nil {
			return ansi.Wrap(s, w, " ")
		}
		mdRenderers[rk] = r
	}
	out, err := renderLines(r, s)
	if err != nil {
		return ansi.Wrap(s, w, " ")
	}
	// Links stay text: glamour makes a markdown link an OSC 8 hyperlink,
	// a target the server chose behind words it chose; the URL is shown
	// beside the words anyway.
	out = withoutOSC(out)
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

// withoutOSC removes Operating System Commands (ESC ] … BEL or ESC \), such
// as OSC 8 hyperlinks, from rendered text; SGR styling stays.
func withoutOSC(s string) string {
	if !strings.Contains(s, "\x1b]") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b]")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+2:]
		end := strings.IndexAny(rest, "\a\x1b")
		switch {
		case end < 0:
			return b.String()
		case rest[end] == '\a':
			s = rest[end+1:]
		case strings.HasPrefix(rest[end:], "\x1b\\"):
			s = rest[end+2:]
		default: // an unterminated OSC ends at the next sequence
			s = rest[end:]
		}
	}
}
