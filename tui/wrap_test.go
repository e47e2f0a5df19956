package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
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
	} {
		if got := wrapWords(c.in, c.w); got != c.want {
			t.Errorf("wrapWords(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}
