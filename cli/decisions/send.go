package decisions

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/review"
)

// One builds the same input for every interrupt named.
func One(in decide.Input) func(*client.Interrupt) (decide.Input, error) {
	return func(*client.Interrupt) (decide.Input, error) { return in, nil }
}

// Decide sends one input, made by one, to every action or, with --action
// N, to action N and --others to the rest.
func Decide(ctx context.Context, o *Options, one func(*client.Interrupt) (decide.Input, error)) error {
	return Send(ctx, o, func(it *client.Interrupt) ([]decide.Input, error) {
		in, err := one(it)
		if err != nil {
			return nil, err
		}
		n := it.Slots()
		out := make([]decide.Input, n)
		if o.Action == 0 {
			if o.Others != "" {
				return nil, review.Usagef("--others needs --action N")
			}
			for i := range out {
				out[i] = in
			}
			return out, nil
		}
		if o.Action < 1 || o.Action > n {
			return nil, review.Usagef("--action %d: this interrupt has %d action(s)", o.Action, n)
		}
		var other decide.Input
		if n > 1 {
			if o.Others == "" && in.Type != "" {
				// Refused whatever --others says: said before asking for it.
				if err := it.CheckAllowed(o.Action-1, in.Type); err != nil {
					return nil, refusalOf(err, it, o.Again)
				}
			}
			if o.Others == "" {
				return nil, review.Usagef("--action %d: say what to do with the other %d action(s) with --others approve|reject[:MESSAGE]|respond:MESSAGE|ignore", o.Action, n-1)
			}
			if other, err = parseOthers(o.Others); err != nil {
				return nil, err
			}
		}
		for i := range out {
			out[i] = other
		}
		out[o.Action-1] = in
		return out, nil
	})
}

// whichAction is what a decision of type t on an interrupt of several
// actions needs, when no --action said which: refused when no action
// allows t (before any flag is asked for), else --action and --others,
// with the actions that allow it named.
func whichAction(it *client.Interrupt, t client.DecisionType, again string) error {
	var can []string
	for i := range it.Actions {
		if it.Allows(i, t) {
			can = append(can, strconv.Itoa(i+1))
		}
	}
	if len(can) == 0 {
		return review.Refusedf("refused, nothing sent: %q is not allowed for any of this interrupt's %d actions (%s show %s says how to answer it)",
			t, len(it.Actions), again, safe(present.ShortID(it.ID)))
	}
	return review.Usagef("this interrupt has %d actions: say which one with --action N (%s is allowed for action %s), and what to do with the others with --others",
		len(it.Actions), t, strings.Join(can, ", "))
}

func parseOthers(s string) (decide.Input, error) {
	t, msg, _ := strings.Cut(s, ":")
	switch client.DecisionType(t) {
	case client.Approve, client.Ignore:
		return decide.Input{Type: client.DecisionType(t)}, nil
	case client.Reject, client.Respond:
		return decide.Input{Type: client.DecisionType(t), Text: msg}, nil
	}
	return decide.Input{}, review.Usagef("--others %q: use approve, reject[:MESSAGE], respond:MESSAGE or ignore", s)
}

// Send turns typed input into decisions by the rules the TUI shares
// (decide.Decisions) and sends them.
func Send(ctx context.Context, o *Options, build func(*client.Interrupt) ([]decide.Input, error)) error {
	return SendDrafts(ctx, o, func(it client.Interrupt) (decide.Draft, error) {
		in, err := build(&it)
		if err != nil {
			return decide.Draft{}, err
		}
		ds, err := decide.Decisions(&it, in)
		if err != nil {
			return decide.Draft{}, refusalOf(err, &it, o.Again)
		}
		return decide.Draft{Interrupt: it, Decisions: ds}, nil
	})
}

// refusalOf is refusal for a decision on it made by a command's flags: it
// says what to type next (the message's -m, or where the allowed
// decisions are described, as hitl was called: again).
func refusalOf(err error, it *client.Interrupt, again string) error {
	var na *client.NotAllowedError
	var refused *client.RefusedError
	id := safe(present.ShortID(it.ID))
	switch {
	case errors.As(err, &na):
		return review.Refusedf("refused, nothing sent: %v (%s show %s says how to answer it)", err, again, id)
	case errors.As(err, &refused) && refused.NoMessage:
		return review.Usagef("nothing sent: %v: give it with -m TEXT", err)
	}
	return refusal(err)
}

// refusal gives a decision refused before sending its exit code: 4 for one
// the interrupt does not allow, 2 for one that is incomplete or malformed.
func refusal(err error) error {
	var na *client.NotAllowedError
	var refused *client.RefusedError
	switch {
	case errors.As(err, &na):
		return review.Refusedf("refused, nothing sent: %v", err)
	case errors.As(err, &refused):
		return review.Usagef("nothing sent: %v", err) // incomplete or malformed: 2, not a refusal (4)
	}
	return err
}

// SendDrafts is the one path by which the CLI sends anything: find the
// interrupts, build their drafts, and hand them to the decision pipeline.
func SendDrafts(ctx context.Context, o *Options, build func(client.Interrupt) (decide.Draft, error)) error {
	if len(o.IDs) == 0 && o.Thread == "" {
		return review.Usagef("give an interrupt id (or several), or --thread THREAD (see hitl list)")
	}
	s, err := o.open(ctx)
	if err != nil {
		return err
	}
	its, err := s.FindAll(ctx, o.IDs, o.Thread)
	if err != nil {
		return err
	}
	drafts := make([]decide.Draft, 0, len(its))
	for _, it := range its {
		d, err := build(it)
		if err != nil {
			return err
		}
		drafts = append(drafts, d)
	}
	return sendPrepared(ctx, o, s, drafts)
}

// sendPrepared hands drafts to the decision pipeline: one resume per
// thread where the backend takes several, each outcome reported.
func sendPrepared(ctx context.Context, o *Options, s *review.Session, drafts []decide.Draft) error {
	p := s.Pipeline()
	subs, err := p.Prepare(drafts)
	if err != nil {
		var de *decide.DraftError
		if errors.As(err, &de) {
			return refusalOf(de.Err, &drafts[de.Draft].Interrupt, o.Again) // which, and how to answer it
		}
		return refusal(err)
	}
	// A thread that also waits at other interrupts (fan-out branches) is
	// not ended, and that is said before anything else: the note that says
	// what an ending does would be printed for nothing. The backend refuses
	// it as well; the rule and its words are decide.EndsAlone's, as in the
	// TUI.
	if err := decide.EndsAlone(drafts, s.Waiting); err != nil {
		return review.Refusedf("refused, nothing sent: %s", err.Error())
	}
	printEdits(o, drafts)
	for _, d := range drafts {
		ending := client.EndingNote(&d.Interrupt.Payload, d.Decisions)
		for _, note := range client.Consequences(&d.Interrupt.Payload, d.Decisions) {
			if note == ending && !o.DryRun {
				continue // the result says what the ending did, once it is done
			}
			fmt.Fprintln(o.Stderr, "note:", note)
		}
		if note := present.KeptAnswerNote(d.Interrupt); note != "" {
			fmt.Fprintln(o.Stderr, "note:", note)
		} else if d.Interrupt.Retry {
			fmt.Fprintf(o.Stderr, "note: the last run of thread %s failed; this answers %s again (if the run fails the same way, the graph kept the first answer)\n",
				safe(d.Interrupt.ThreadID), safe(present.ShortID(d.Interrupt.ID)))
		}
		// Claims are advice: said, never in the way.
		if others := d.Interrupt.Others(s.Journal.ID(), time.Now()); len(others) > 0 {
			fmt.Fprintf(o.Stderr, "note: %s: %s; your decision may race theirs\n",
				safe(present.ShortID(d.Interrupt.ID)), safe(present.Editing(others, time.Now())))
		}
	}
	if o.DryRun {
		return printDryRun(o, subs)
	}
	code := review.OK
	for _, sub := range subs {
		res := p.Send(ctx, sub)
		for _, w := range res.Warnings {
			fmt.Fprintln(o.Stderr, "hitl: warning:", w)
		}
		c, err := review.OfResult(res)
		code = review.Worse(code, c)
		switch {
		case o.JSON:
			if err := present.WriteJSON(o.Stdout, review.ResultJSON(res), true); err != nil {
				return err
			}
		case res.Kind == decide.Sent:
			fmt.Fprintln(o.Stdout, res.Text())
			if res.Run.Reply != "" {
				fmt.Fprintf(o.Stdout, "Agent: %s\n", present.Indent(strings.TrimRight(safeBlock(res.Run.Reply), "\n"), "  ")[2:])
			}
		}
		if err != nil && !o.JSON {
			fmt.Fprintln(o.Stderr, "hitl:", err)
		}
	}
	if code != review.OK {
		return &review.Error{Kind: code, Err: ErrPrinted}
	}
	return nil
}

// printEdits writes, for each edit among the drafts, the change to the
// arguments (present.ArgsChange): what a key left out of --args drops is
// seen before it is sent.
func printEdits(o *Options, drafts []decide.Draft) {
	for _, d := range drafts {
		for i, dec := range d.Decisions {
			if dec.Type == client.Edit && i < len(d.Interrupt.Actions) {
				a := d.Interrupt.Actions[i]
				present.ArgsChange(o.Stderr, a.Name, d.Interrupt.ID, a.Args, dec.Args)
			}
		}
	}
}

// printDryRun prints what would be sent: the resume value (one interrupt),
// or the resume map of each submission.
func printDryRun(o *Options, subs []*client.Submission) error {
	if len(subs) == 1 && len(subs[0].Items) == 1 {
		r := subs[0].Items[0].Resume
		if r.Continue {
			fmt.Fprintln(o.Stdout, `(continue: a run with no input and no resume value)`)
			return nil
		}
		if r.End != nil {
			fmt.Fprintln(o.Stdout, review.EndingText(r.End))
			return nil
		}
		return present.WriteJSON(o.Stdout, r.Value, true)
	}
	for _, s := range subs {
		m := map[string]any{}
		for _, it := range s.Items {
			m[it.Interrupt.ID] = review.ResumeJSON(it.Resume)
		}
		fmt.Fprintf(o.Stdout, "thread %s, one resume:\n", safe(s.ThreadID))
		if err := present.WriteJSON(o.Stdout, m, true); err != nil {
			return err
		}
	}
	return nil
}
