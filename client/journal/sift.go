package journal

import "github.com/hitl-sh/hitl/client"

// What a listing comes to on this machine. The CLI and the TUI both take
// what a backend lists through Sift: every interrupt listed is recorded as
// seen (so that one that later disappears can be looked up: answered
// elsewhere, and by whom), and those this machine handled are left out
// (never shown twice, whatever the server still lists).

// Sifted is a backend's listing as this machine shows it.
type Sifted struct {
	// Items are the interrupts listed, less those this machine handled,
	// in the backend's order.
	Items []client.Interrupt
	// Handled are the ids this machine handled (Handled).
	Handled map[string]bool
	// SawErr: the sightings could not be recorded (Saw); the items are
	// still right, and the next listing tries again.
	SawErr error
}

// Sift records all as seen and leaves out what this machine handled. all
// itself is not changed.
func (j *Journal) Sift(all []client.Interrupt) Sifted {
	err := j.Saw(all)
	handled := j.Handled()
	return Sifted{Items: Unhandled(all, handled), Handled: handled, SawErr: err}
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
