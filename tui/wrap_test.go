package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/hitl-sh/hitl/client"
)

// The status after an edit quotes JSON: a word that fits a line is moved
// whole to the next one, never broken at its hyphen ("A-" / "1001"), and a
// word wider than the screen is folded, not cut.
func TestStatusWrapsAtSpacesNotMidWord(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	// "A-" ends at column 80 of the first line.
	lead := strings.Repeat("x", 60) + ` "order_id": "A-1001",`
	h.m.setStatus(lead+` "amount": 15`, true)
	h.msg(tea.WindowSizeMsg{Width: 80, Height: 24})
	if !strings.Contains(h.screen(), `"A-1001",`) {
		t.Fatalf("A-1001 broken across lines:\n%s", h.screen())
	}

	long := strings.Repeat("0123456789", 17) // 170 cells, no space in it
	h.m.setStatus("Agent: "+long+" done.", true)
	h.msg(tea.WindowSizeMsg{Width: 80, Height: 24})
	lines := h.m.statusLines(80, 24)
	joined := ""
	for _, l := range lines[:len(lines)-1] {
		l = ansi.Strip(l)
		if ansi.StringWidth(l) > 80 {
			t.Fatalf("a line wider than the screen: %q", l)
		}
		joined += l
	}
	if !strings.Contains(joined, long) || !strings.HasSuffix(joined, "done.") {
		t.Fatalf("the long word is not all there: %q", joined)
	}
}

func TestWrapWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"ab cd-ef", 6, "ab\ncd-ef"},
		{"ab  cd", 10, "ab  cd"},
		{"abcdefghij", 4, "abcd\nefgh\nij"},
		{"x a,b,c,d", 5, "x\na,b,\nc,d"},
		{"one\ntwo three", 5, "one\ntwo\nthree"},
		{"  - a b", 10, "  - a b"},             // a line's indent is kept
		{"  - aaaa bbbb", 8, "  - aaaa\nbbbb"}, // its fold starts at the margin
	} {
		if got := wrapWords(c.in, c.w); got != c.want {
			t.Errorf("wrapWords(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}

// A message of the conversation wraps at its spaces, as the status does:
// "order A-1001" is not split at its hyphen ("A-" / "1001") when a space
// earlier on the line would do; a word wider than the pane is folded,
// whole.
func TestConversationWrapsAtSpacesNotMidWord(t *testing.T) {
	ops := fixture(t, "middleware-js-ops", idOps, time.Minute)
	// Each line puts the hyphen one column further on: one of them
	// reaches the pane's edge, whatever its width.
	var paras []string
	for pad := range 6 {
		paras = append(paras, strings.Repeat("x", 62+pad)+` for order A-1001 ok`)
	}
	long := strings.Repeat("0123456789", 10) // wider than the pane, no space in it
	h := newHarness(t, 80, 24, ops)
	h.b.Messages = map[string][]client.Message{ops.ThreadID: {
		{Role: "ai", Content: strings.Join(paras, "\n")},
		{Role: "tool", Content: "see " + long + " end"}}}
	h.keys("enter", "c")
	h.m.detail.vp.GotoBottom()
	s := h.screen()
	if n := strings.Count(s, "A-1001"); n != len(paras) {
		t.Fatalf("A-1001 whole %d times of %d: broken at its hyphen:\n%s", n, len(paras), s)
	}
	for _, l := range strings.Split(s, "\n") {
		if strings.HasSuffix(strings.TrimRight(l, " │"), "A-") {
			t.Fatalf("a line ends at the hyphen: %q\n%s", l, s)
		}
	}
	if joined := strings.Join(strings.Fields(s), ""); !strings.Contains(joined, "see"+long+"end") {
		t.Fatalf("the long word is not all there:\n%s", s)
	}
}
