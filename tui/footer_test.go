package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// One footer style at every width: "key what", two spaces apart; when
// short, quit and filter go first, then hints give way to "…", never back
// or help.
func TestFooterOneStyle(t *testing.T) {
	k, st := defaultKeys(), newStyles()
	hs := append(on(k.Approve, k.Edit, k.Reject, k.Respond, k.NextAction, k.Submit, k.Filter, k.Back, k.Help, k.Quit), hint{b: k.Ignore, off: true})
	wide := ansi.Strip(footer(st, k, "", hs, 200))
	if want := "a approve  e edit  r reject  f respond  tab next  s submit  / filter  esc back  ? help  q quit  not allowed: i"; wide != want {
		t.Fatalf("at 200 columns:\n%s\nwant\n%s", wide, want)
	}
	for _, w := range []int{80, 60, 40} {
		got := ansi.Strip(footer(st, k, "", hs, w))
		if ansi.StringWidth(got) > w || !strings.Contains(got, "esc back") || !strings.Contains(got, "? help") || strings.Contains(got, ":approve") {
			t.Errorf("at %d columns: %q", w, got)
		}
		if strings.Contains(got, "q quit") {
			t.Errorf("at %d columns quit stayed while others went: %q", w, got)
		}
	}
	if got := ansi.Strip(footer(st, k, "", hs, 80)); got != "a approve  e edit  r reject  f respond  tab next  s submit  …  esc back  ? help" {
		t.Errorf("at 80 columns: %q", got)
	}
}

// Nothing leaves the bar without a mark: quit or filter dropped for room
// leave one "…" where they stood, as any other hint does.
func TestFooterMarksEveryCut(t *testing.T) {
	k, st := defaultKeys(), newStyles()
	hs := on(k.Approve, k.Edit, k.Open, k.Filter, k.Help, k.Quit)
	full := ansi.Strip(footer(st, k, "", hs, 200))
	if full != "a approve  e edit  enter open  / filter  ? help  q quit" {
		t.Fatalf("at 200: %q", full)
	}
	got := ansi.Strip(footer(st, k, "", hs, ansi.StringWidth(full)-1))
	if got != "a approve  e edit  enter open  / filter  ? help  …" {
		t.Errorf("quit dropped: %q", got)
	}
	got = ansi.Strip(footer(st, k, "", hs, 40))
	if got != "a approve  e edit  enter open  …  ? help" {
		t.Errorf("at 40: %q", got)
	}
	form := on(k.NextField, k.PrevField, k.Accept, k.Back)
	got = ansi.Strip(footer(st, k, "", form, 50))
	if strings.Contains(got, "shift+tab") || !strings.Contains(got, "…") {
		t.Errorf("prev field dropped without a mark: %q", got)
	}
}

// Whatever the hints and the width, back and help stay and any hint left
// out leaves one "…" (the failed run's detail once lost "?" to the "…").
func TestFooterKeepsBackAndHelpAtEveryWidth(t *testing.T) {
	k, st := defaultKeys(), newStyles()
	all := []hint{{b: k.Approve}, {b: k.Edit, off: true}, {b: k.Reject}, {b: k.Respond, off: true}, {b: k.NextAction}, {b: k.Submit},
		{b: k.Conversation, more: true}, {b: k.History, more: true}, {b: k.Back}, {b: k.Help}, {b: k.Quit}, {b: k.Ignore, off: true}}
	for n := 4; n <= len(all); n++ { // from back on
		hs := all[len(all)-n:]
		for w := 24; w <= 140; w++ {
			got := ansi.Strip(footer(st, k, "", hs, w))
			if ansi.StringWidth(got) > w || !strings.Contains(got, "esc back") || !strings.Contains(got, "? help") {
				t.Fatalf("%d hints at %d: %q", n, w, got)
			}
			if full := ansi.Strip(footer(st, k, "", hs, 1000)); got != full && strings.Count(got, "…") != 1 {
				t.Fatalf("%d hints at %d cut without one …: %q", n, w, got)
			}
		}
	}
}
