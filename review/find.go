package review

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
)

// Find resolves an id or unique prefix (at least 4 characters) to one
// waiting interrupt.
func (s *Session) Find(ctx context.Context, id string) (client.Interrupt, error) {
	its, err := s.FindAll(ctx, []string{id}, "")
	if err != nil {
		return client.Interrupt{}, err
	}
	return its[0], nil
}

// listsAll reports whether every id (or prefix) is in the listing, or
// among the ids this machine knows answered (hidden).
func listsAll(all []client.Interrupt, hidden map[string]bool, ids []string) bool {
next:
	for _, id := range ids {
		id = strings.ToLower(strings.TrimSpace(id))
		for _, it := range all {
			if strings.HasPrefix(strings.ToLower(it.ID), id) {
				continue next
			}
		}
		for h := range hidden {
			if strings.HasPrefix(strings.ToLower(h), id) {
				continue next
			}
		}
		return false
	}
	return true
}

// mergeListings is a listing with what a second one found beside it
// (each interrupt once, the second's reading where both have it).
func mergeListings(first, second []client.Interrupt) []client.Interrupt {
	in := make(map[string]bool, len(second))
	for _, it := range second {
		in[it.ID] = true
	}
	out := slices.Clone(second)
	for _, it := range first {
		if !in[it.ID] {
			out = append(out, it)
		}
	}
	return out
}

// FindAll resolves ids (or prefixes of 4+ characters), and with thread
// every waiting interrupt of that thread, reading the server once.
func (s *Session) FindAll(ctx context.Context, ids []string, thread string) ([]client.Interrupt, error) {
	for _, id := range ids {
		if len(strings.TrimSpace(id)) < 4 {
			return nil, Usagef("interrupt id %q is too short: give at least 4 characters of it (see hitl list)", safe(id))
		}
	}
	all, err := s.Listing(ctx)
	if err != nil {
		return nil, err
	}
	sifted := s.Sift(all)
	if thread == "" && !listsAll(all, sifted.Hidden, ids) {
		// A listing is paged: threads answered while it was read move
		// the ones after them to pages already read (a server with many
		// waiting threads and a busy team). Before an id is called gone,
		// the server is read once more.
		if again, err := s.Backend.Pending(ctx); err == nil {
			all = mergeListings(all, again)
			sifted = s.Sift(all)
		}
	}
	handled := sifted.Hidden
	s.Waiting = s.Waiting[:0]
	for _, it := range all {
		if !handled[it.ID] {
			s.Waiting = append(s.Waiting, it)
		}
	}
	var out []client.Interrupt
	seen := map[string]bool{}
	add := func(it client.Interrupt) {
		if !seen[it.ID] {
			seen[it.ID] = true
			out = append(out, it)
		}
	}
	if thread != "" {
		t := strings.ToLower(strings.TrimSpace(thread))
		if len(t) < 4 {
			return nil, Usagef("thread id %q is too short: give at least 4 characters of it", safe(thread))
		}
		threads := map[string]bool{}
		for _, it := range all {
			if present.ThreadMatches(it.ThreadID, t) && !handled[it.ID] {
				threads[it.ThreadID] = true
				add(it)
			}
		}
		switch {
		case len(threads) > 1:
			return nil, Usagef("thread %q matches %d threads; give more characters", safe(thread), len(threads))
		case len(threads) == 0:
			return nil, Refusedf("no waiting interrupt in thread %q on %s (see hitl list)", safe(thread), safe(s.Backend.Server()))
		}
	}
	for _, id := range ids {
		it, err := s.findIn(ctx, all, sifted, id)
		if err != nil {
			return nil, err
		}
		add(it)
	}
	return out, nil
}

func (s *Session) findIn(ctx context.Context, all []client.Interrupt, sifted journal.Sifted, id string) (client.Interrupt, error) {
	handled := sifted.Hidden
	id = strings.ToLower(strings.TrimSpace(id))
	var matches []client.Interrupt
	for _, it := range all {
		if strings.HasPrefix(strings.ToLower(it.ID), id) && (len(matches) == 0 || matches[len(matches)-1].ID != it.ID) {
			matches = append(matches, it)
		}
	}
	// handledMatch: a decision sent from this machine answered it;
	// elsewhereMatch: this machine found it answered by another decision.
	var handledMatch, elsewhereMatch string
	for h := range handled {
		switch {
		case !strings.HasPrefix(strings.ToLower(h), id):
		case sifted.Handled[h]:
			handledMatch = h
		default:
			elsewhereMatch = h
		}
	}
	if handledMatch != "" {
		// hitl before 2026-11 wrote ids it found answered elsewhere as
		// handled: the audit log tells them apart.
		if e, ok := s.Journal.Last(handledMatch); ok && e.Outcome == journal.HandledElsewhere {
			handledMatch, elsewhereMatch = "", handledMatch
		}
	}
	if len(matches) == 0 {
		// Not waiting: held by a thread whose run failed, it can be
		// answered again (hitl list shows such threads).
		if retry, err := s.retryIn(ctx, id); err != nil || retry != nil {
			return derefOr(retry), err
		}
		// An A2A task named by its id (an agent that cannot list).
		if tasks, ok := s.Backend.(interface {
			Task(context.Context, string) ([]client.Interrupt, error)
		}); ok {
			asked, err := tasks.Task(ctx, strings.TrimSpace(id))
			if s.EndedTask != nil {
				if task, state, ended := s.EndedTask(err); ended {
					return client.Interrupt{}, s.taskNotWaiting(task, state)
				}
			}
			if err != nil {
				return client.Interrupt{}, err
			}
			if len(asked) == 1 && !handled[asked[0].ID] {
				return asked[0], nil
			}
			matches = asked
		}
	}
	switch {
	case len(matches) > 1:
		var lines []string
		for _, m := range matches {
			lines = append(lines, fmt.Sprintf("  %s  %s  %s", safe(m.ID), safe(m.GraphID), oneLine(present.Summary(m), 50)))
		}
		return client.Interrupt{}, Usagef("%q matches %d interrupts; give more characters:\n%s", safe(id), len(matches), strings.Join(lines, "\n"))
	case len(matches) == 1 && !handled[matches[0].ID]:
		return matches[0], nil
	case handledMatch != "" && s.Reading:
		msg := fmt.Sprintf("interrupt %s no longer waits: it was decided from this machine", safe(handledMatch))
		if e, ok := s.Journal.Last(handledMatch); ok {
			by := ""
			if e.Reviewer != "" {
				by = " by " + safe(e.Reviewer)
			}
			msg += fmt.Sprintf(": %s%s at %s, %s", present.Decided(e), by, e.Time.Local().Format(time.DateTime), present.Outcome(e))
		}
		return client.Interrupt{}, Nothingf("%s (hitl history shows the decision)", msg)
	case handledMatch != "":
		msg := fmt.Sprintf("interrupt %s was already handled from this machine", safe(handledMatch))
		var mine *client.Winner
		if e, ok := s.Journal.Last(handledMatch); ok {
			by := "" // a hub that had not answered yet did not say who
			if e.Reviewer != "" {
				by = " by " + safe(e.Reviewer)
			}
			msg += fmt.Sprintf(" (%s%s, %s)", e.Time.Local().Format(time.DateTime), by, e.Outcome)
			mine = &client.Winner{RunID: e.RunID, Reviewer: e.Reviewer, At: e.Time, Value: e.Resume}
		}
		return client.Interrupt{}, WithAbout(Nothingf("%s; nothing sent (hitl forget %s makes it pending here again)", msg, present.ShortID(handledMatch)),
			"handled-here", handledMatch, mine)
	case elsewhereMatch != "":
		// Answered by another decision; what this machine tried (refused,
		// or not applied) is in its audit log, with the winner it learnt.
		var winner *client.Winner
		if e, ok := s.Journal.Last(elsewhereMatch); ok {
			winner = e.Winner
		}
		if seen := s.Journal.Sightings(elsewhereMatch); winner == nil && len(seen) == 1 {
			// Refused before any attempt was recorded: the server says.
			if st, err := s.Backend.Standing(ctx, []client.Interrupt{seen[0].Interrupt()}); err == nil && len(st) == 1 {
				winner = st[0].By
			}
		}
		if s.Reading {
			return client.Interrupt{}, Nothingf("interrupt %s no longer waits: it was answered elsewhere%s", safe(elsewhereMatch), decide.WinnerText(winner))
		}
		return client.Interrupt{}, WithAbout(Nothingf("%s: already handled elsewhere; nothing sent%s", safe(present.ShortID(elsewhereMatch)), decide.WinnerText(winner)),
			"handled-elsewhere", elsewhereMatch, winner)
	}
	// Not listed: if it was seen pending before, its thread tells whether it
	// was answered (and by whom) or is gone.
	seen := s.Journal.Sightings(id)
	if len(seen) == 1 {
		it := seen[0].Interrupt()
		st, err := s.Backend.Standing(ctx, []client.Interrupt{it})
		if err != nil {
			return client.Interrupt{}, fmt.Errorf("interrupt %s is no longer listed, and its thread could not be read to say why: %w", safe(present.ShortID(it.ID)), err)
		}
		if len(st) == 1 {
			switch st[0].Presence {
			case client.Answered:
				if e, ok := s.Journal.Last(it.ID); ok && e.Outcome.Took() {
					// Its own decision, the id forgotten since (hitl
					// forget): this machine's journal knows it.
					return client.Interrupt{}, s.decidedHere(it.ID, e)
				}
				_ = s.Journal.MarkElsewhere(it.ID)
				if s.Reading {
					return client.Interrupt{}, Nothingf("%s no longer waits: it was answered elsewhere%s", safe(present.ShortID(it.ID)), decide.WinnerText(st[0].By))
				}
				return client.Interrupt{}, WithAbout(Nothingf("%s: already handled elsewhere; nothing sent%s", safe(present.ShortID(it.ID)), decide.WinnerText(st[0].By)),
					"handled-elsewhere", it.ID, st[0].By)
			case client.Gone:
				if s.Reading {
					return client.Interrupt{}, Nothingf("interrupt %s: its thread %s no longer exists on %s", safe(present.ShortID(it.ID)), safe(it.ThreadID), safe(s.Backend.Server()))
				}
				return client.Interrupt{}, WithAbout(Nothingf("interrupt %s: its thread %s no longer exists on %s; nothing sent", safe(present.ShortID(it.ID)), safe(it.ThreadID), safe(s.Backend.Server())),
					"gone", it.ID, nil)
			}
		}
	}
	if len(seen) > 0 {
		return client.Interrupt{}, Refusedf("no waiting interrupt %q among those hitl lists on %s; nothing sent (hitl list shows what waits)", safe(id), safe(s.Backend.Server()))
	}
	return client.Interrupt{}, Refusedf("no waiting interrupt %q on %s: it was answered, or never existed (this machine never saw it listed, so cannot tell which; hitl list shows what waits)", safe(id), safe(s.Backend.Server()))
}

// taskNotWaiting says why an A2A task named by its id has nothing to
// answer: decided from this machine (the audit log says how), else
// answered elsewhere or ended. Nothing is sent (exit 3).
func (s *Session) taskNotWaiting(task, state string) error {
	state = safe(state)
	if state == "" {
		state = "in a state the agent does not name"
	}
	nothing := "; nothing sent"
	if s.Reading {
		nothing = ""
	}
	if h, err := s.Journal.History(); err == nil {
		for _, e := range h {
			if e.ThreadID == task && e.Server == s.Backend.Server() {
				by := ""
				if e.Reviewer != "" {
					by = " by " + safe(e.Reviewer)
				}
				return Nothingf("task %s no longer waits: it was decided from this machine: %s%s at %s, %s%s (hitl history shows the decision)",
					safe(task), present.Decided(e), by, e.Time.Local().Format(time.DateTime), present.Outcome(e), nothing)
			}
		}
	}
	return Nothingf("task %s waits for no answer: it is %s (answered elsewhere, or ended)%s", safe(task), state, nothing)
}

// retryIn finds id (or a prefix) among the interrupts that threads whose
// run failed still hold: nil when none matches.
func (s *Session) retryIn(ctx context.Context, id string) (*client.Interrupt, error) {
	l := s.Features.FailureLister
	if l == nil {
		return nil, nil
	}
	fs, _, err := l.Failures(ctx, FailuresRead)
	if err != nil {
		return nil, nil // the failed runs cannot be read now: not found, as before
	}
	var matches []client.Interrupt
	for _, f := range fs {
		for _, it := range f.Interrupts {
			if strings.HasPrefix(strings.ToLower(it.ID), id) {
				matches = append(matches, it)
			}
		}
	}
	switch len(matches) {
	case 0:
		return nil, nil
	case 1:
		return &matches[0], nil
	}
	return nil, Usagef("%q matches %d interrupts of failed runs; give more characters", safe(id), len(matches))
}

func derefOr(it *client.Interrupt) client.Interrupt {
	if it == nil {
		return client.Interrupt{}
	}
	return *it
}

// ThreadOf resolves a thread id or a prefix of 4+ characters among the
// threads this machine knows: pending now, seen pending, or decided. An id
// (or prefix) of an interrupt of one such thread is taken for its thread,
// said on stderr. A full id nobody here knows is taken as it is, not known
// (the server may know it).
func (s *Session) ThreadOf(ctx context.Context, prefix string) (thread string, known bool, err error) {
	p := strings.ToLower(strings.TrimSpace(prefix))
	if len(p) < 4 {
		return "", false, Usagef("thread id %q is too short: give at least 4 characters of it", safe(prefix))
	}
	// found: the threads whose id matches; of: the threads of the
	// interrupts whose id matches (an interrupt id given for a thread's).
	found, of := map[string]bool{}, map[string]bool{}
	add := func(thread, interrupt string) {
		if present.ThreadMatches(thread, p) {
			found[thread] = true
		}
		if thread != "" && strings.HasPrefix(strings.ToLower(interrupt), p) {
			of[thread] = true
		}
	}
	if its, err := s.Listing(ctx); err == nil {
		for _, it := range its {
			add(it.ThreadID, it.ID)
		}
	}
	for _, s := range s.Journal.Sightings("") {
		add(s.ThreadID, s.ID)
	}
	h, herr := s.Journal.History()
	s.JournalWarn(herr, "threads known only from this machine's decisions are not matched")
	for _, e := range h {
		add(e.ThreadID, e.InterruptID)
	}
	if len(found) == 0 && len(of) > 0 {
		// No thread is named so: the id is an interrupt's, whose thread
		// holds the conversation.
		if len(of) == 1 {
			for id := range of {
				if s.Warnings != nil {
					fmt.Fprintf(s.Warnings, "hitl: %s is an interrupt id; showing the conversation of its thread %s\n", safe(prefix), safe(id))
				}
				return id, true, nil
			}
		}
		return "", false, Usagef("%q is the id of interrupts in %d threads: give a thread id (hitl show ID prints an interrupt's thread):\n%s", safe(prefix), len(of), sortedLines(of))
	}
	switch len(found) {
	case 1:
		for id := range found {
			return id, true, nil
		}
	case 0:
		return strings.TrimSpace(prefix), false, nil
	}
	return "", false, Usagef("%q matches %d threads; give more characters:\n%s", safe(prefix), len(found), sortedLines(found))
}

// sortedLines lists ids, one an indented line, in order.
func sortedLines(ids map[string]bool) string {
	var out []string
	for id := range ids {
		out = append(out, "  "+safe(id))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// decidedHere says that interrupt id, which no longer waits, was decided
// from this machine (e, its journal's newest entry, a decision that took
// effect), though its id was forgotten since: nothing is sent (exit 3).
func (s *Session) decidedHere(id string, e journal.Entry) error {
	by := ""
	if e.Reviewer != "" {
		by = " by " + safe(e.Reviewer)
	}
	said := fmt.Sprintf("%s%s at %s, %s", present.Decided(e), by, e.Time.Local().Format(time.DateTime), present.Outcome(e))
	if s.Reading {
		return Nothingf("interrupt %s no longer waits: it was decided from this machine: %s (hitl history shows the decision)", safe(present.ShortID(id)), said)
	}
	mine := &client.Winner{RunID: e.RunID, Reviewer: e.Reviewer, At: e.Time, Value: e.Resume}
	return WithAbout(Nothingf("%s: already decided from this machine (%s); nothing sent (hitl history shows the decision)", safe(present.ShortID(id)), said),
		"handled-here", id, mine)
}
