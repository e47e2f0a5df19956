package review

import (
	"context"
	"strings"

	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/decide"
)

// Checked is what hitl check found: each decision of unknown outcome
// looked up again on the server (Results), and the decisions whose run the
// server still shows going (Running), which it leaves as they are.
type Checked struct {
	Results []*decide.Result
	Running []journal.Entry
}

// Unknown counts the results the server still cannot tell.
func (c Checked) Unknown() int {
	n := 0
	for _, r := range c.Results {
		if r.Kind == decide.Unknown {
			n++
		}
	}
	return n
}

// Check looks up again the decisions of unknown outcome sent from this
// machine, with id (4+ characters) only those about that interrupt.
func (s *Session) Check(ctx context.Context, id string) (Checked, error) {
	var match func(journal.Entry) bool
	if id != "" {
		id = strings.ToLower(strings.TrimSpace(id))
		if len(id) < 4 {
			return Checked{}, Usagef("interrupt id %q is too short: give at least 4 characters of it", safe(id))
		}
		match = func(e journal.Entry) bool { return strings.HasPrefix(e.InterruptID, id) }
	}
	results, err := s.Pipeline().Reconcile(ctx, match)
	if err != nil {
		return Checked{}, err
	}
	return Checked{Results: results, Running: s.stillRunning(match)}, nil
}

// stillRunning are the decisions whose run the server still shows going
// after Reconcile (it leaves them as they are), one per decision.
func (s *Session) stillRunning(match func(journal.Entry) bool) []journal.Entry {
	open, err := s.Journal.Unsettled(s.Backend.Server())
	s.JournalWarn(err, "decisions still running are not listed")
	var out []journal.Entry
	seen := map[string]bool{}
	for _, x := range open {
		if x.Outcome != journal.Running || seen[x.DecisionID] || (match != nil && !match(x)) {
			continue
		}
		seen[x.DecisionID] = true
		out = append(out, x)
	}
	return out
}

// Unresolved are the decisions of unknown outcome on this server (hitl
// list shows them below the inbox).
func (s *Session) Unresolved() []journal.Entry {
	open, err := s.Journal.Unresolved(s.Backend.Server())
	s.JournalWarn(err, "decisions of unknown outcome are not listed")
	return open
}

// Forget makes the interrupt this machine handled that id (4+ characters)
// names pending again here: it is listed while the server lists it. It
// returns the interrupt's full id.
func (s *Session) Forget(id string) (string, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if len(id) < 4 {
		return "", Usagef("interrupt id %q is too short: give at least 4 characters of it", safe(id))
	}
	var found []string
	for h := range s.Journal.Hidden() {
		if strings.HasPrefix(h, id) {
			found = append(found, h)
		}
	}
	switch len(found) {
	case 0:
		return "", Refusedf("no handled interrupt %q on this machine (hitl history lists what was decided)", safe(id))
	case 1:
	default:
		return "", Usagef("%q matches %d handled interrupts; give more characters", safe(id), len(found))
	}
	if err := s.Journal.Forget(found[0]); err != nil {
		return "", err
	}
	return found[0], nil
}
