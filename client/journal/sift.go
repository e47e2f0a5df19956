package journal

import "github.com/hitl-sh/hitl/client"

// What a listing comes to on this machine. The CLI and the TUI both take
// what a backend lists through Sift: every interrupt listed is recorded as
// seen (so that one that later disappears can be looked up: answered
// elsewhere, and by whom), and those this machine handled or found answered
// elsewhere are left out (never shown twice, whatever the server still
// lists).

// Sifted is a backend's listing as this machine shows it.
type Sifted struct {
	// Items are the interrupts listed, less the Hidden ones, in the
	// backend's order.
	Items []client.Interrupt
	// Handled are the ids decisions sent from this machine answered
	// (Handled); Hidden adds those it found answered elsewhere (Hidden).
	Handled, Hidden map[string]bool
	// SawErr: the sightings could not be recorded (Saw); the items are
	// still right, and the next listing tries again.
	SawErr error
}

// Sift records all as seen and leaves out what this machine handled or
// found answered elsewhere. all itself is not changed.
func (j *Journal) Sift(all []client.Interrupt) Sifted {
	err := j.Saw(all)
	j.mu.Lock()
	_ = j.reload()
	handled, hidden := copySet(j.handled), copySet(j.handled)
	for id := range j.elsewhere {
		hidden[id] = true
	}
	j.mu.Unlock()
	return Sifted{Items: Unhandled(all, hidden), Handled: handled, Hidden: hidden, SawErr: err}
}

// Unhandled is all less the interrupts whose id is in handled, in order:
// all itself when none is (an idle poll of a large inbox copies nothing),
// else a new list.
func Unhandled(all []client.Interrupt, handled map[string]bool) []client.Interrupt {
	first := -1
	for i := range all {
		if handled[all[i].ID] {
			first = i
			break
		}
	}
	if first < 0 {
		return all
	}
	out := make([]client.Interrupt, first, len(all)-1)
	copy(out, all[:first])
	for _, it := range all[first+1:] {
		if !handled[it.ID] {
			out = append(out, it)
		}
	}
	return out
}
