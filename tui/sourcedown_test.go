package tui

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
)

// A source of the hub's inbox down, at 80 columns: the status line says
// which and that the rest is live; the cut takes the error's detail.
func TestSourceDownKeepsTheRestIsLiveAt80(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.m.sourceDown = &client.SourceDown{Source: "the LangGraph server at http://127.0.0.1:2024",
		Err: errors.New("list interrupted threads: Post \"http://127.0.0.1:2024/threads/search\": dial tcp 127.0.0.1:2024: connect: connection refused")}
	h.m.items.loaded = true
	h.m.status = ""
	lines := h.m.statusLines(80, 24)
	last := ansi.Strip(lines[len(lines)-1])
	if !strings.HasPrefix(last, "✗ the LangGraph server at http://127.0.0.1:2024 is down · the rest is live") || ansi.StringWidth(last) > 80 ||
		!strings.HasSuffix(last, "…") {
		t.Fatalf("status line at 80: %q", last)
	}
}
