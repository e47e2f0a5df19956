package tui

import (
	"reflect"
	"strings"

	tea "charm.land/bubbletea/v2"
	"testing"
	"time"
	"unsafe"
)

// An idle reviewer (no key for a while, interrupts hours old, a healthy
// server) is woken by nothing but its poll: a poll that finds what is
// shown draws no frame, and the clock asks for no tick before the hour
// shown in the ages changes.
func TestIdleReviewerIsNotWoken(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, 2*time.Hour+30*time.Minute))
	frame := h.m.frame
	if !strings.Contains(frame, "2h") || !strings.Contains(frame, "updated just now") {
		t.Fatalf("frame:\n%s", frame)
	}
	h.now = h.now.Add(activeFor + time.Second) // past the reviewer's last key
	next, cmd := h.m.Update(pollMsg{})
	h.m = next.(*Model)
	if !h.m.quiet {
		t.Fatal("a poll that only starts a listing drew a frame")
	}
	msgs := collect(cmd)
	if len(msgs) != 1 {
		t.Fatalf("the poll's command answered %d messages", len(msgs))
	}
	if _, ok := msgs[0].(pendingMsg); !ok {
		t.Fatalf("the poll's command answered %T", msgs[0])
	}
	next, cmd = h.m.Update(msgs[0])
	h.m = next.(*Model)
	if !h.m.quiet {
		t.Fatal("a listing that found what is shown drew a frame")
	}
	if h.m.frame != frame {
		t.Fatal("the frame changed")
	}
	// What the listing asks for: the next poll (a timer), nothing else.
	if cmds := flatten(cmd); len(cmds) != 1 || !waits(cmds[0]) {
		t.Errorf("an idle listing started %d commands", len(cmds))
	}
	// The clock: nothing before "just now" ends (which the next poll
	// moves on), then the hour of the age.
	if due := h.m.due(); !due.Equal(h.now.Add(h.m.freshFor())) {
		t.Fatalf("next tick in %s, want %s", due.Sub(h.now), h.m.freshFor())
	}
	h.m.lastUpdate = time.Time{}
	h.m.items.loaded = false
	if due, want := h.m.due(), h.m.items.all[0].UpdatedAt.Add(3*time.Hour); !due.Equal(want) {
		t.Fatalf("next tick in %s, want %s", due.Sub(h.now), want.Sub(h.now))
	}
}

// flatten lists the commands of a batch without running them.
func flatten(cmd tea.Cmd) []tea.Cmd {
	if cmd == nil {
		return nil
	}
	if strings.Contains(maker(cmd), "Batch") {
		var out []tea.Cmd
		for _, c := range cmd().(tea.BatchMsg) {
			out = append(out, flatten(c)...)
		}
		return out
	}
	return []tea.Cmd{cmd}
}

// A key makes the reviewer active: drafts are saved and claimed within a
// second, so the clock ticks each second, then stops.
func TestClockTicksWhileTheReviewerWorks(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, 2*time.Hour))
	h.now = h.now.Add(time.Minute)
	h.keys("j")
	if due := h.m.due(); due.Sub(h.now) > time.Second {
		t.Fatalf("after a key, next tick in %s, want a second", due.Sub(h.now))
	}
	h.now = h.now.Add(activeFor)
	h.m.lastUpdate = h.now
	if due := h.m.due(); due.Sub(h.now) < h.m.freshFor() {
		t.Fatalf("idle again, next tick in %s", due.Sub(h.now))
	}
}

func TestAgeChanges(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct{ age, next time.Duration }{
		{0, time.Second},
		{1500 * time.Millisecond, 2 * time.Second},
		{59 * time.Second, time.Minute},
		{90 * time.Second, 2 * time.Minute},
		{59*time.Minute + 59*time.Second, time.Hour},
		{5*time.Hour + time.Minute, 6 * time.Hour},
		{50 * time.Hour, 72 * time.Hour},
		{-time.Second, time.Second},
	} {
		if got := ageChanges(t0, t0.Add(c.age)); !got.Equal(t0.Add(c.next)) {
			t.Errorf("age %s: changes at +%s, want +%s", c.age, got.Sub(t0), c.next)
		}
	}
}

// The pacer reaches Bubble Tea's frame ticker: when an upgrade renames or
// retypes it, an idle reviewer would wake 20 times a second again.
func TestPacerReachesTheTicker(t *testing.T) {
	if !tickerFound {
		t.Fatal("tea.Program has no ticker *time.Ticker field: see pacer.go")
	}
	p := tea.NewProgram(nil)
	var pc pacer
	pc.program = p
	ticker := time.NewTicker(time.Hour)
	defer ticker.Stop()
	v := reflect.ValueOf(p).Elem().FieldByIndex(tickerField.Index)
	*(**time.Ticker)(unsafe.Pointer(v.UnsafeAddr())) = ticker
	if pc.reach() != ticker {
		t.Fatal("the pacer did not reach the program's ticker")
	}
	// A frame drawn: the full rate, then a rest check; rested once no frame
	// came since.
	if pc.drew() == nil || !pc.active {
		t.Fatal("a frame drawn did not bring the ticker to the full rate")
	}
	if pc.drew() != nil {
		t.Fatal("a second rest check while one is in flight")
	}
	if pc.onRest(restMsg{drawn: 1}) == nil || !pc.active {
		t.Fatal("a frame drawn since the check: the renderer rested")
	}
	if pc.onRest(restMsg{drawn: 2}) != nil || pc.active {
		t.Fatal("no frame since the check: the renderer did not rest")
	}
}
