package hub

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/rules"
	"github.com/hitl-sh/hitl/store"
	"github.com/hitl-sh/hitl/team"
)

// The two-person rule, at the one place every decision of the hub passes:
// the shared backend's Resume. For an interrupt with an action a team rule
// names, an approve or an edit of that action is recorded as an approval of
// the exact resume value (on the server: client.ApprovalKeeper) and nothing
// is sent, until enough distinct approvers approved the same value; then
// one resume is sent, its run's metadata naming them all. A decision that
// only rejects the named actions needs one reviewer.

// approvalError is a decision recorded as an approval and not sent.
type approvalError struct{ msg string }

func (e *approvalError) Error() string        { return e.msg }
func (e *approvalError) Is(target error) bool { return target == client.ErrAwaitingApproval }

// refusedError is a decision refused and not recorded: the reviewer
// approved this same decision already, and that approval stands.
type refusedError struct{ msg string }

func (e *refusedError) Error() string        { return e.msg }
func (e *refusedError) Is(target error) bool { return target == client.ErrRefused }

// Resume sends the submission, or records it as an approval where a rule
// asks for more approvers than it has. What the rules say is the team's
// one rule engine's (rules.Judge), on each item's parsed interrupt.
func (s *Shared) Resume(ctx context.Context, sub *client.Submission) (client.Receipt, error) {
	t := s.team()
	if !t.MayDecide(sub.Reviewer) {
		// The TUI does not offer it; this is the door every path shares.
		s.logf(ctx, "decision refused", "reviewer", sub.Reviewer, "thread", sub.ThreadID, "why", "not an approver")
		err := &rules.ErrNotApprover{Reviewer: sub.Reviewer}
		s.audit(ctx, sub, store.OutcomeRefused, err.Error(), nil)
		return client.Receipt{}, err
	}
	// Approvals kept in the store change only as read: another
	// approver's change meanwhile (on this hub or another) and this one
	// is judged again on it.
	for range 20 {
		rc, err := s.resume(ctx, t, sub)
		if !errors.Is(err, errChanged) {
			return rc, err
		}
	}
	return client.Receipt{}, fmt.Errorf("the approvals on thread %s kept changing as you decided (other approvers at the same time): nothing was sent; look again", sub.ThreadID)
}

func (s *Shared) resume(ctx context.Context, t *team.Config, sub *client.Submission) (client.Receipt, error) {
	kept, _ := s.Upstream.(approvalStore)
	verdicts := map[int]rules.Verdict{}
	stored := map[int]storedApproval{} // the store's approvals, as read
	complete := true
	var before []string
	for i, item := range sub.Items {
		need := rules.NeedOf(t, &item.Interrupt.Payload, item.Decisions)
		if !need.Gated() {
			continue
		}
		var rec *client.Approval
		var err error
		var st storedApproval
		inStore := false
		if kept != nil {
			st, inStore, err = kept.StoredApproval(ctx, item.Interrupt)
		}
		if err == nil && !inStore {
			rec, err = s.Upstream.Approval(ctx, item.Interrupt)
		}
		if err != nil {
			return client.Receipt{}, fmt.Errorf("cannot read the approvals on thread %s, so nothing was sent: %w", sub.ThreadID, err)
		}
		if inStore {
			if why := st.spent(time.Now()); why != "" {
				s.logf(ctx, "decision not taken", "reviewer", sub.Reviewer, "thread", sub.ThreadID, "interrupt", item.Interrupt.ID, "why", why)
				s.auditItem(ctx, sub, item, store.OutcomeConflict, why, nil)
				return client.Receipt{}, &handledError{why}
			}
			rec = st.a
			stored[i] = st
		}
		v, err := rules.Judge(t, &item.Interrupt.Payload, item.Decisions, rec, sub.Reviewer, item.Resume.Value, time.Now())
		if err != nil {
			return client.Receipt{}, err
		}
		if v.Tally.Already {
			s.logf(ctx, "approval refused", "reviewer", sub.Reviewer, "thread", sub.ThreadID, "interrupt", item.Interrupt.ID, "why", "approved already")
			s.audit(ctx, sub, store.OutcomeRefused, v.Tally.Message(v.Need.Tools), v.Tally.Next.Approvers)
			return client.Receipt{}, &refusedError{v.Tally.Message(v.Need.Tools)}
		}
		verdicts[i] = v
		if !v.Send {
			complete = false
			continue
		}
		for _, a := range v.Approvers {
			if !slices.Contains(before, a) {
				before = append(before, a)
			}
		}
	}
	if len(verdicts) == 0 {
		return s.send(ctx, sub)
	}
	if complete {
		// The store's approvals are claimed for this send first: of
		// approvers completing them at once, on any hub, one sends and
		// the others are told (or judged again on what changed).
		var claimed []int
		settle := func(state string) {
			for _, i := range claimed {
				a := stored[i].a
				if state != store.Approving {
					a = sentApproval(verdicts[i], sub.Items[i])
				}
				if _, err := kept.SetStoredApproval(context.WithoutCancel(ctx), sub.Items[i].Interrupt, stored[i].version+1, a, state); err != nil {
					s.logf(ctx, "approval not settled", "interrupt", sub.Items[i].Interrupt.ID, "state", state, "error", err.Error())
				}
			}
		}
		for i := range verdicts {
			st, ok := stored[i]
			if !ok {
				continue
			}
			done, err := kept.SetStoredApproval(ctx, sub.Items[i].Interrupt, st.version, sentApproval(verdicts[i], sub.Items[i]), store.Sending)
			if err != nil || !done {
				settle(store.Approving)
				if err != nil {
					return client.Receipt{}, fmt.Errorf("cannot record the approval on thread %s, so nothing was sent: %w", sub.ThreadID, err)
				}
				return client.Receipt{}, errChanged
			}
			claimed = append(claimed, i)
		}
		sub.Approvers = before
		rc, err := s.send(ctx, sub)
		if err == nil || errors.Is(err, client.ErrMaybeSent) {
			// The approvals are spent: a new interrupt with the same id
			// (the graph asks again) starts from none; the store's say
			// sent, for an approver deciding at this moment.
			for i := range verdicts {
				if _, ok := stored[i]; !ok {
					_ = s.Upstream.RecordApproval(context.WithoutCancel(ctx), sub.Items[i].Interrupt, nil)
				}
			}
			settle(store.Sent)
		} else {
			settle(store.Approving) // not sent: they wait as they were
		}
		return rc, err
	}
	// Record this approver's approval of each gated item: added to the same
	// decision's, or a first approval replacing one of another decision.
	var said []string
	for i, v := range verdicts {
		item := sub.Items[i]
		next := v.Tally.Next
		if v.Send {
			continue // complete on its own; the others are not: it waits with them
		}
		var err error
		if st, ok := stored[i]; ok {
			var done bool
			if done, err = kept.SetStoredApproval(ctx, item.Interrupt, st.version, next, store.Approving); err == nil && !done {
				return client.Receipt{}, errChanged
			}
		} else {
			err = s.Upstream.RecordApproval(ctx, item.Interrupt, next)
		}
		if err != nil {
			return client.Receipt{}, fmt.Errorf("cannot record the approval on thread %s, so nothing was sent: %w", sub.ThreadID, err)
		}
		s.logf(ctx, "approval recorded", "reviewer", sub.Reviewer, "thread", sub.ThreadID, "interrupt", item.Interrupt.ID,
			"approvals", fmt.Sprintf("%d/%d", len(next.Approvers), next.Needed), "approvers", strings.Join(next.Approvers, ","),
			"replaced", v.Tally.Replaced != nil, "dropped", strings.Join(next.Dropped, ","))
		said = append(said, v.Tally.Recorded(v.Need.Tools))
		s.auditItem(ctx, sub, item, store.OutcomeApproved, v.Tally.Recorded(v.Need.Tools), next.Approvers)
	}
	return client.Receipt{}, &approvalError{strings.Join(said, "; ") + client.NothingSent}
}

// sentApproval is the approval a complete verdict sends: every approver.
func sentApproval(v rules.Verdict, item client.Item) *client.Approval {
	if v.Tally.Next != nil {
		return v.Tally.Next
	}
	return &client.Approval{Approvers: v.Approvers, Needed: v.Need.Approvals, Value: item.Resume.Value, Decisions: item.Decisions, Tools: v.Need.Tools}
}

// send passes the submission on, with a log line.
func (s *Shared) send(ctx context.Context, sub *client.Submission) (client.Receipt, error) {
	rc, err := s.Upstream.Resume(ctx, sub)
	var kinds []string
	for _, it := range sub.Items {
		for _, d := range it.Decisions {
			kinds = append(kinds, string(d.Type))
		}
	}
	args := []any{"reviewer", sub.Reviewer, "thread", sub.ThreadID, "interrupts", strings.Join(sub.IDs(), ","),
		"decisions", strings.Join(kinds, ","), "decision_id", sub.DecisionID}
	if len(sub.Approvers) > 0 {
		args = append(args, "approvers", strings.Join(sub.Approvers, ","))
	}
	approvers := sub.Approvers
	if len(approvers) == 0 {
		approvers = []string{sub.Reviewer}
	}
	switch {
	case errors.Is(err, client.ErrAlreadyHandled):
		s.logf(ctx, "decision not taken", append(args, "error", err.Error())...)
		s.audit(ctx, sub, store.OutcomeConflict, err.Error(), approvers)
	case err != nil:
		s.logf(ctx, "decision not taken", append(args, "error", err.Error())...)
		s.audit(ctx, sub, store.OutcomeFailed, err.Error(), approvers)
	default:
		s.logf(ctx, "decision sent", append(args, "run", rc.RunID)...)
		s.audit(ctx, sub, store.OutcomeSent, "", approvers)
	}
	return rc, err
}

// audit appends the submission's items to the team's audit log, one entry
// each: who, through which door, the exact value, what came of it.
func (s *Shared) audit(ctx context.Context, sub *client.Submission, outcome, msg string, approvers []string) {
	for _, item := range sub.Items {
		s.auditItem(ctx, sub, item, outcome, msg, approvers)
	}
}

func (s *Shared) auditItem(ctx context.Context, sub *client.Submission, item client.Item, outcome, msg string, approvers []string) {
	if s.Audit == nil {
		return
	}
	door, _ := ctx.Value(doorKey{}).(string)
	if door == "" {
		door = "ssh"
	}
	e := store.Entry{Reviewer: sub.Reviewer, Role: string(s.team().Reviewers[sub.Reviewer].Role), Door: door, RequestID: item.Interrupt.ID,
		ThreadID: sub.ThreadID, Value: item.Resume.Value, Approvers: approvers, Outcome: outcome, Message: msg, DecisionID: sub.DecisionID}
	if item.Resume.End != nil {
		e.Decision = "end"
	}
	var kinds []string
	for _, d := range item.Decisions {
		kinds = append(kinds, string(d.Type))
	}
	if len(kinds) > 0 {
		e.Decision = strings.Join(kinds, ",")
	}
	for _, a := range item.Interrupt.Actions {
		e.Tools = append(e.Tools, a.Name)
	}
	s.Audit(context.WithoutCancel(ctx), e)
}

func (s *Shared) team() *team.Config {
	if s.Team == nil {
		return &team.Config{}
	}
	return s.Team()
}

// logf logs a line of a decision; one that came through the HTTP door
// says so (door=http).
func (s *Shared) logf(ctx context.Context, msg string, args ...any) {
	if s.Log == nil {
		return
	}
	if d, ok := ctx.Value(doorKey{}).(string); ok {
		args = append(args, "door", d)
	}
	s.Log.Info(msg, args...)
}

// doorKey marks the context of a decision that came through a door other
// than a session (Door: "http").
type doorKey struct{}

// PruneApprovals drops, from every pending approval of the listing, the
// approvers who are no longer approvers of the team in force (rules.Prune):
// the hub calls it after each reload of the team, so a removed reviewer's
// approval neither counts nor stays on the rows as if it did; each row says
// whose was dropped. It returns how many interrupts changed.
func (s *Shared) PruneApprovals(ctx context.Context) int {
	t := s.team()
	items, err := s.Pending(ctx)
	if err != nil && len(items) == 0 {
		return 0
	}
	n := 0
	for _, it := range items {
		if it.Approval == nil {
			continue
		}
		rec, a, err := s.prune(ctx, t, it)
		if rec == nil && err == nil {
			continue
		}
		if err != nil {
			s.logf(ctx, "approval not pruned", "interrupt", it.ID, "error", err.Error())
			continue
		}
		n++
		s.logf(ctx, "approval dropped", "interrupt", it.ID, "thread", it.ThreadID, "dropped", strings.Join(a.Dropped, ","),
			"why", "no longer an approver", "approvals", fmt.Sprintf("%d/%d", len(a.Approvers), a.Needed))
		if s.Audit != nil {
			// The team's audit log: one entry per reviewer dropped.
			var tools []string
			for _, act := range it.Actions {
				tools = append(tools, act.Name)
			}
			for _, who := range a.Dropped[len(a.Dropped)-(len(rec.Approvers)-len(a.Approvers)):] {
				s.Audit(context.WithoutCancel(ctx), store.Entry{Reviewer: who, Door: "reload", RequestID: it.ID, ThreadID: it.ThreadID, Tools: tools,
					Approvers: a.Approvers, Outcome: store.OutcomeDropped, Message: who + "'s approval dropped: no longer an approver of the team (" + a.Words() + ")"})
			}
		}
	}
	if n > 0 && s.list(ctx) {
		s.signal()
	}
	return n
}

// prune drops from the interrupt's pending approval the approvers no
// longer of team t: rec is the approval as it was, a as it is now (rec
// nil: nothing to drop). The store's approvals change only as read.
func (s *Shared) prune(ctx context.Context, t *team.Config, it client.Interrupt) (rec, a *client.Approval, err error) {
	kept, _ := s.Upstream.(approvalStore)
	for range 20 {
		var st storedApproval
		inStore := false
		if kept != nil {
			if st, inStore, err = kept.StoredApproval(ctx, it); err != nil {
				return nil, nil, err
			}
		}
		if !inStore {
			if rec, err = s.Upstream.Approval(ctx, it); err != nil || rec == nil {
				return nil, nil, err
			}
			a, changed := rules.Prune(t, rec)
			if !changed {
				return nil, nil, nil
			}
			if err := s.Upstream.RecordApproval(ctx, it, a); err != nil {
				return nil, nil, err
			}
			return rec, a, nil
		}
		if st.state != store.Approving || st.a == nil {
			return nil, nil, nil
		}
		a, changed := rules.Prune(t, st.a)
		if !changed {
			return nil, nil, nil
		}
		done, err := kept.SetStoredApproval(ctx, it, st.version, a, store.Approving)
		if err != nil {
			return nil, nil, err
		}
		if done {
			return st.a, a, nil
		}
	}
	return nil, nil, errors.New("the approvals keep changing: not pruned")
}
