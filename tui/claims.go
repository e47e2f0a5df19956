package tui

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/present"
)

// Team presence. While the reviewer holds a draft for an interrupt (typed
// something, recorded a decision, or has its editor or form open), the app
// claims it on the server, refreshes the claim while the draft lasts, and
// clears it once the draft is sent, discarded or the app quits. Others'
// claims show on the row, in the detail and on the confirm screen. Claims
// are advice: nothing is refused because of one. The clock decides (each
// tick), commands do the I/O.

// held is a claim this app has made.
type held struct {
	it      client.Interrupt // as it was claimed: what a release names
	since   time.Time
	written time.Time // the last claim sent (successful or not)
	busy    bool      // a claim or release is on its way
}

// claimMsg is the answer to a claim (or, with release, its clearing).
type claimMsg struct {
	id      string
	release bool
	err     error
}

// presence is the app's part in the team's claims.
type presence struct {
	claimer client.Claimer // nil: the backend keeps none, or refused them
	me      string         // this app's client id (see journal.ID)
	held    map[string]*held
}

func newPresence(c client.Claimer, me string) presence {
	if me == "" {
		var r [8]byte
		_, _ = rand.Read(r[:])
		me = hex.EncodeToString(r[:])
	}
	return presence{claimer: c, me: me, held: map[string]*held{}}
}

// drafting lists the interrupts the reviewer holds a draft for now: a
// draft with something in it, or an editor (or form) open on it.
func (m *Model) drafting() map[string]*client.Interrupt {
	out := map[string]*client.Interrupt{}
	for id, d := range m.drafts {
		if it := m.items.get(id); it != nil && d.touched() {
			out[id] = it
		}
	}
	for _, s := range m.stack {
		t, ok := s.(typist)
		if !ok {
			continue
		}
		e, _ := t.typed()
		if it := m.items.get(e.id); it != nil {
			out[e.id] = it
		}
	}
	return out
}

// syncClaims claims what the reviewer drafts and has not claimed (or
// claimed a minute ago), and clears the claims of drafts that are gone.
func (m *Model) syncClaims() tea.Cmd {
	p := &m.presence
	if p.claimer == nil {
		return nil
	}
	now := m.opts.Now()
	want := m.drafting()
	var cmds []tea.Cmd
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		h := p.held[id]
		if h == nil {
			h = &held{since: now}
			p.held[id] = h
		} else if h.busy || now.Sub(h.written) < client.ClaimRefresh {
			continue
		}
		h.it, h.written, h.busy = *want[id], now, true
		c := client.Claim{Reviewer: m.opts.Reviewer, Client: p.me, Since: h.since, Expires: now.Add(client.ClaimTTL)}
		cmds = append(cmds, claimCmd(p.claimer, h.it, c, false))
	}
	for id, h := range p.held {
		if _, ok := want[id]; ok || h.busy {
			continue
		}
		delete(p.held, id)
		cmds = append(cmds, claimCmd(p.claimer, h.it, client.Claim{Reviewer: m.opts.Reviewer, Client: p.me}, true))
	}
	return tea.Batch(cmds...)
}

func claimCmd(c client.Claimer, it client.Interrupt, cl client.Claim, release bool) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := ctxFor(10 * time.Second)
		defer cancel()
		var err error
		if release {
			err = c.Release(ctx, it, cl)
		} else {
			err = c.Claim(ctx, it, cl)
		}
		return claimMsg{id: it.ID, release: release, err: err}
	}
}

// onClaim takes a claim's answer. A claim the server refuses while it
// answers the listing (auth, an older server) turns claims off for the
// session, said once; one that failed with the server unreachable is
// tried again at the next refresh.
func (m *Model) onClaim(msg claimMsg) tea.Cmd {
	p := &m.presence
	if h := p.held[msg.id]; h != nil && !msg.release {
		h.busy = false
	}
	if msg.err == nil || p.claimer == nil {
		return nil
	}
	if errors.Is(msg.err, client.ErrNoThread) {
		// That thread is gone (a server restarted with nothing kept): the
		// next listing drops its interrupt, and with it the claim; the
		// other claims stand. (Held as written: not asked again each
		// second meanwhile.)
		return nil
	}
	if m.fetchErr == nil && m.items.loaded {
		p.claimer = nil
		p.held = map[string]*held{}
		// Said once, and only on a free status line: what a send said
		// matters more.
		if m.status == "" {
			m.setStatus("Other reviewers will not see what you are editing: the server did not record it ("+firstLine(msg.err.Error())+").", true)
		}
	}
	return nil
}

// releaseAll clears every claim this app holds, within a couple of
// seconds (quitting: a reviewer who left is editing nothing).
func (m *Model) releaseAll() tea.Cmd {
	p := &m.presence
	if p.claimer == nil || len(p.held) == 0 {
		return nil
	}
	c, me, reviewer := p.claimer, p.me, m.opts.Reviewer
	var its []client.Interrupt
	for _, h := range p.held {
		its = append(its, h.it)
	}
	p.held = map[string]*held{}
	return func() tea.Msg {
		ctx, cancel := ctxFor(2 * time.Second)
		defer cancel()
		done := make(chan struct{}, len(its))
		for _, it := range its {
			go func() {
				_ = c.Release(ctx, it, client.Claim{Reviewer: reviewer, Client: me})
				done <- struct{}{}
			}()
		}
		for range its {
			select {
			case <-done:
			case <-ctx.Done():
				return nil
			}
		}
		return nil
	}
}

// editing says who else is editing it ("" for nobody).
func (m *Model) editing(it *client.Interrupt) string {
	others := m.others(it)
	if len(others) > 0 {
		m.heldFor(others[0].Since) // the time it shows
	}
	return present.Editing(others, m.opts.Now())
}

// raceWarning is the confirm screen's word on others' claims ("" for none).
func (m *Model) raceWarning(it *client.Interrupt) string {
	others := m.others(it)
	who, n := present.Claimants(others)
	if n == 0 {
		return ""
	}
	have := "has"
	if n > 1 {
		have = "have"
	}
	return who + " " + have + " been editing this for " + m.heldFor(others[0].Since) +
		"; your decision may race theirs (a claim is advice: nothing stops either of you)."
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
