package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/present"
)

// The clock wakes the app only when something needs it: a text on screen
// that changes with time (an age, "updated 12s ago") at the moment it
// changes and at the resolution shown (ages in minutes: once a minute), and
// the reviewer's work (drafts saved and claimed within a second of a key,
// claims refreshed before they expire). An app left open with nothing
// arriving is woken by its poll and by the minutes of its ages, not once a
// second.
//
// A frame records, while it is drawn, when it goes stale (Model.age and
// Model.staleAt); Update draws the frame when a message changed something
// (see frame) and then asks for one tick at the earliest moment anything is
// due (Model.schedule). A tick that a later schedule replaced is dropped.

// tickMsg is the clock's message; gen says which schedule it belongs to.
type tickMsg struct {
	gen int
	at  time.Time
}

// activeFor is how long after a key (or a paste) the reviewer counts as at
// work: the clock ticks each second meanwhile, so that what they type is
// saved and claimed within a second.
const activeFor = 3 * time.Second

// freshFor is how long "updated just now" stays true after a listing: the
// periodic read of a healthy server comes every PollInterval, so the age
// in seconds would only ever say 0s, 1s, 2s (and wake the app to say it).
func (m *Model) freshFor() time.Duration {
	return 2*m.opts.PollInterval + time.Second
}

// fresh: the last listing is recent enough to say "updated just now".
func (m *Model) fresh() bool {
	return m.opts.Now().Sub(m.lastUpdate) < m.freshFor()
}

// clock is the one tick scheduled, and what the last frame drawn said of
// time.
type clock struct {
	gen     int       // the schedule of the tick in flight
	at      time.Time // when it fires; zero: none in flight
	staleAt time.Time // when the last frame drawn changes by itself; zero: never
	// drawnFresh: the last frame said "updated just now".
	drawnFresh bool
}

// age is present.Age of t, noting when that text changes (the frame is
// drawn again then).
func (m *Model) age(t time.Time) string {
	now := m.opts.Now()
	if !t.IsZero() {
		m.staleAt(ageStale(t, now))
	}
	return present.Age(t, now)
}

// ageStale is when the age of t shown at now changes, rounded up to a
// whole second once the age is shown in minutes or more: a second late is
// not seen, and the ages of interrupts raised within the same second (a
// burst, a fan-out) then change in one frame, not in one frame each.
func ageStale(t, now time.Time) time.Time {
	change := ageChanges(t, now)
	if now.Sub(t) < time.Minute {
		return change
	}
	if r := change.Truncate(time.Second); !r.Equal(change) {
		return r.Add(time.Second)
	}
	return change
}

// heldFor is present.HeldFor, noting when it changes.
func (m *Model) heldFor(since time.Time) string {
	now := m.opts.Now()
	if now.Sub(since) < time.Minute {
		m.staleAt(since.Add(time.Minute))
		return present.HeldFor(since, now)
	}
	m.staleAt(ageChanges(since, now))
	return present.HeldFor(since, now)
}

// others is it.Others, noting when the first of those claims expires.
func (m *Model) others(it *client.Interrupt) []client.Claim {
	others := it.Others(m.presence.me, m.opts.Now())
	for _, c := range others {
		if !c.Expires.IsZero() {
			m.staleAt(c.Expires)
		}
	}
	return others
}

// staleAt notes that the frame being drawn changes at t.
func (m *Model) staleAt(t time.Time) {
	if m.clock.staleAt.IsZero() || t.Before(m.clock.staleAt) {
		m.clock.staleAt = t
	}
}

// ageChanges is the moment present.Age(t, ·) next says something else.
func ageChanges(t, now time.Time) time.Time {
	d := now.Sub(t)
	var unit time.Duration
	switch {
	case d < 0:
		return t.Add(time.Second) // "0s" until a second has passed
	case d < time.Minute:
		unit = time.Second
	case d < time.Hour:
		unit = time.Minute
	case d < 48*time.Hour:
		unit = time.Hour
	default:
		unit = 24 * time.Hour
	}
	return t.Add((d/unit + 1) * unit)
}

// due is when the app needs its next tick (zero: nothing needs one).
func (m *Model) due() time.Time {
	now := m.opts.Now()
	next := m.clock.staleAt
	soon := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	if m.items.loaded && m.fetchErr == nil && m.fresh() {
		soon(m.lastUpdate.Add(m.freshFor())) // "just now" ends
	}
	if now.Sub(m.lastKey) < activeFor || m.fetchErr != nil {
		soon(now.Add(time.Second))
	}
	if end := m.statusEnds(); !end.IsZero() {
		soon(end) // the status line goes
	}
	if gone := m.goneAt(); !gone.IsZero() {
		soon(gone) // the reviewer counts as gone: the watcher looks seldom
	}
	if _, failing := m.journalErrs[problemDrafts]; failing {
		soon(now.Add(time.Second)) // drafts not saved: written again each second
	}
	// Claims: refreshed before they expire; taken and released within a
	// second of the drafts changing (a key, an interrupt gone).
	p := &m.presence
	if p.claimer != nil {
		want := m.drafting()
		for id, h := range p.held {
			if _, ok := want[id]; !ok {
				soon(now.Add(time.Second))
			} else if !h.busy {
				soon(h.written.Add(client.ClaimRefresh))
			}
		}
		for id := range want {
			if p.held[id] == nil {
				soon(now.Add(time.Second))
			}
		}
	}
	if !next.IsZero() && next.Before(now.Add(10*time.Millisecond)) {
		next = now.Add(10 * time.Millisecond) // never a busy loop
	}
	return next
}

// schedule asks for a tick when one is due, unless one in flight comes
// first. One in flight that comes too early is harmless: its frame is the
// same, and it schedules the next.
func (m *Model) schedule() tea.Cmd {
	want := m.due()
	if want.IsZero() || (!m.clock.at.IsZero() && !want.Before(m.clock.at)) {
		return nil
	}
	m.clock.gen++
	m.clock.at = want
	gen := m.clock.gen
	return after(want.Sub(m.opts.Now()), func(t time.Time) tea.Msg { return tickMsg{gen: gen, at: t} })
}

// onTick: a tick of the current schedule saves drafts and syncs claims;
// the frame is drawn again (the time it shows changed). A replaced one is
// dropped, and changes nothing.
func (m *Model) onTick(msg tickMsg) tea.Cmd {
	if msg.gen != m.clock.gen {
		m.quiet = true
		return nil
	}
	m.clock.at = time.Time{}
	// Nothing on screen changed with time: the tick came for a moment that
	// a later listing moved ("just now" lasts from the newest), or for
	// drafts and claims.
	now := m.opts.Now()
	m.quiet = (m.clock.staleAt.IsZero() || now.Before(m.clock.staleAt)) && m.fresh() == m.clock.drawnFresh
	return tea.Batch(m.persistDrafts(), m.syncClaims())
}

// deadline is present.Deadline of it, noting when that text changes: each
// second in the last two minutes either side of the deadline, else within
// half a minute (it speaks in minutes then).
func (m *Model) deadline(it *client.Interrupt) string {
	now := m.opts.Now()
	dl := present.Deadline(it, now)
	if dl != "" {
		left := it.ExpiresAt.Sub(now)
		if left < 2*time.Minute && left > -2*time.Minute {
			m.staleAt(now.Add(time.Second))
		} else {
			m.staleAt(now.Add(30 * time.Second))
		}
	}
	return dl
}

// after is tea.Tick: every wait of the app (the periodic read, the clock,
// the renderer's rest) is one Go timer, and tests know it by its name.
func after(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	return tea.Tick(d, fn)
}
