package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
)

// The periodic read (every PollInterval) takes the watcher's listing, sifts
// it through the journal (what this machine handled, the decisions of
// unknown outcome) and compares it with what is shown. An idle reviewer's
// listing is the same every time: at a thousand pending, copying, sifting
// and comparing it was most of what the idle app did.
//
// So a read notes what it was read against: the backend's version of the
// pending set (client.Settled) and the state of the journal's files
// (journal.Mark). The next periodic read lists nothing when both are the
// same and the watcher's reading is current (Settled's ok): what is shown
// is what a listing would show. The failed threads, when due, are read all
// the same. The reads that follow a change signal, a send or a refresh
// always list.
//
// A skipped read counts as a listing that found what was there: "updated
// just now" holds, because the watcher looked a moment ago and saw the
// version shown. When the watcher fails or lags, Settled says so (not ok),
// the read lists, and the listing's error shows as it always did.

// readMark is what a listing was read against.
type readMark struct {
	version uint64 // client.Settled's
	journal journal.Mark
}

// unchangedMsg: the periodic read found nothing changed and listed
// nothing; failed: the failed threads, read when they were due.
type unchangedMsg struct{ failed *failedList }

// markNow is the mark of a read starting now; not ok when it cannot be
// told (the backend has no Settled, its watcher is not current, the
// journal's files cannot be read).
func markNow(s client.Settled, j *journal.Journal) (readMark, bool) {
	if s == nil {
		return readMark{}, false
	}
	v, ok := s.Settled()
	if !ok {
		return readMark{}, false
	}
	mk := readMark{version: v}
	if j != nil {
		jm, err := j.Mark()
		if err != nil {
			return readMark{}, false
		}
		mk.journal = jm
	}
	return mk, true
}

// readAgainst is what the next periodic read compares with: the mark of a
// listing that was taken and sifted whole (nil after any error: read again).
func (msg pendingMsg) readAgainst() *readMark {
	if msg.err != nil || msg.sawErr != nil || msg.auditErr != nil {
		return nil
	}
	return msg.mark
}

// idleRead is the periodic read: poll, unless nothing changed since the
// last listing.
func (m *Model) idleRead() tea.Cmd {
	if m.fetching {
		return nil
	}
	m.fetching = true
	return m.read(true, m.lastRead)
}

// onUnchanged: the periodic read found what is shown, without listing.
func (m *Model) onUnchanged(msg unchangedMsg) tea.Cmd {
	m.fetching = false
	m.lastUpdate = m.opts.Now() // as current as a listing would have been
	// Nothing to draw, unless the frame no longer says "just now" or the
	// failed threads changed.
	m.quiet = m.clock.drawnFresh
	if msg.failed != nil && !m.failed.same(msg.failed) {
		m.onFailures(msg.failed)
		m.quiet = false
	} else if msg.failed != nil && msg.failed.err == nil {
		m.failed.at = m.opts.Now()
		m.failed.seen, m.failed.readAt = msg.failed.seen, m.failed.at
	}
	if m.refetchAfter {
		m.refetchAfter = false
		m.fetching = true
		return m.fetch(false)
	}
	return pollAfter(m.opts.PollInterval)
}
