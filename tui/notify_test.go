package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/hitl-sh/hitl/client"
)

func environ(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestTerminalKindFromTheEnvironment(t *testing.T) {
	for _, tt := range []struct {
		env  func(string) string
		want string
	}{
		{environ("TERM", "xterm-kitty"), termKitty},
		{environ("KITTY_WINDOW_ID", "1", "TERM", "xterm-256color"), termKitty},
		{environ("LC_TERMINAL", "iTerm2", "TERM", "xterm-256color"), termOSC9}, // iTerm2 over SSH (SendEnv LC_*)
		{environ("TERM_PROGRAM", "WezTerm"), termOSC9},
		{environ("WT_SESSION", "x"), termOSC9},
		{environ("TERM", "foot"), termOSC777},
		{environ("TERM", "rxvt-unicode-256color"), termOSC777},
		{environ("TERM", "xterm-256color"), termPlain},
	} {
		if got := TerminalKind(tt.env); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.env("TERM"), got, tt.want)
		}
	}
}

// The exact bytes written for each terminal kind, inside tmux and not, for
// a payload that tries to end the sequence and start its own.
func TestNotificationBytes(t *testing.T) {
	fresh := []client.Interrupt{toolCall(idEmail, "t", "send_email", `{}`), toolCall(idOps, "u", "delete_records", `{}`)}
	fresh[1].GraphID = "ops\x07\x1b]0;pwned\x07;x"
	title, body := notifyText(fresh)
	for _, kind := range []string{termPlain, termOSC9, termOSC777, termKitty} {
		for _, tmux := range []bool{false, true} {
			name := kind
			if name == "" {
				name = "bell"
			}
			if tmux {
				name += "-tmux"
			}
			t.Run(name, func(t *testing.T) {
				out := notification(kind, tmux, title, body)
				if strings.Contains(out, "pwned\x07") || strings.Count(out, "\x07") > 1 {
					t.Fatalf("the payload ends the sequence: %q", out)
				}
				golden.RequireEqual(t, out)
			})
		}
	}
}

// New interrupts are announced only while the reviewer looks elsewhere.
func TestNotifiesOnlyWhenNotLooking(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.m.termKind, h.m.notifyMode = termOSC9, NotifyDesktop
	arrive := func(id string) tea.Cmd {
		h.b.Add(toolCall(id, "t-"+id[:4], "send_email", `{}`))
		_, cmd := h.m.Update(collect(h.m.fetch(false))[0])
		return cmd
	}
	raw := func(cmd tea.Cmd) string {
		var out []string
		for _, msg := range collect(cmd) {
			if r, ok := msg.(tea.RawMsg); ok {
				out = append(out, r.Msg.(string))
			}
		}
		return strings.Join(out, "")
	}
	h.msg(tea.FocusMsg{})
	if got := raw(arrive("1111" + strings.Repeat("0", 28))); got != "" {
		t.Fatalf("notified while looking: %q", got)
	}
	h.msg(tea.BlurMsg{})
	if got := raw(arrive("2222" + strings.Repeat("0", 28))); !strings.HasPrefix(got, "\x1b]9;hitl: 1 new interrupt: agent send_email") {
		t.Fatalf("not notified while away: %q", got)
	}
	// A terminal that does not report focus: a minute without a key.
	h.m.focusKnown = false
	h.now = h.now.Add(2 * time.Minute)
	if got := raw(arrive("3333" + strings.Repeat("0", 28))); got == "" {
		t.Fatal("not notified after a minute idle")
	}
	h.m.notifyMode = NotifyOff
	if got := raw(arrive("4444" + strings.Repeat("0", 28))); got != "" {
		t.Fatalf("notify: off notified: %q", got)
	}
}

// Bubble Tea writes a notification's bytes at its frame ticker's next tick,
// and a resting screen's ticker ticks every five seconds: the bytes are
// followed by a message that brings the full rate back, so they are written
// at once, and the frame stays as it was.
func TestNotificationIsWrittenAtOnce(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.m.termKind, h.m.notifyMode = termOSC9, NotifyDesktop
	ticker := time.NewTicker(time.Hour)
	defer ticker.Stop()
	h.m.pace = pacer{ticker: ticker}
	h.msg(tea.BlurMsg{})
	h.b.Add(toolCall(idEmail, "t-mail", "send_email", `{}`))
	_, cmd := h.m.Update(collect(h.m.fetch(false))[0])
	h.m.Update(restMsg{drawn: h.m.pace.drawn}) // the screen rests before the bytes go
	if h.m.pace.active {
		t.Fatal("the pacer did not rest")
	}
	var order []string
	for _, msg := range collect(cmd) {
		switch msg.(type) {
		case tea.RawMsg:
			order = append(order, "bytes")
		case wroteMsg:
			order = append(order, "wrote")
			frame := h.m.frame
			h.m.Update(msg)
			if !h.m.pace.active {
				t.Fatal("after the notification's bytes the renderer still rests")
			}
			if h.m.frame != frame {
				t.Fatal("the notification redrew the frame")
			}
		}
	}
	if got := strings.Join(order, ", "); got != "bytes, wrote" {
		t.Fatalf("messages after an arrival while away: %s, want bytes, wrote", got)
	}
}
