package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/review"
)

// maxInput is the most a file or standard input given to --args,
// --decisions or --value may weigh.
const maxInput = 16 << 20

// sendFlags are shared by every command that sends a decision.
type sendFlags struct {
	action  int    // 1-based; 0 means every action
	others  string // decision for the other actions when action is set
	message string
	answers []string
	thread  string
	asJSON  bool
	dryRun  bool
	wait    time.Duration
}

func (f *sendFlags) register(e *env, cmd *cobra.Command, withAction bool) {
	fl := cmd.Flags()
	if withAction {
		fl.IntVar(&f.action, "action", 0, "apply to action N only (1-based); the others take --others")
		fl.StringVar(&f.others, "others", "", "with --action: decision for every other action: approve, reject[:MESSAGE], respond:MESSAGE or ignore")
	}
	fl.StringVar(&f.thread, "thread", "", "every waiting interrupt of this thread (id or 4+ characters of it), in one resume")
	fl.BoolVar(&f.asJSON, "json", false, "print the outcome as JSON")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the exact resume value and send nothing")
	fl.DurationVar(&f.wait, "wait", 60*time.Second, "how long to follow the run after sending")
	// With --json, what ends the command before a resume's outcome is
	// printed (no longer waits, refused, …) is an object too.
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		err := run(c, args)
		if err != nil && f.asJSON && !f.dryRun && !errors.Is(err, errAlreadyPrinted) {
			if werr := writeJSON(e.stdout, review.ErrorJSON(err, exitKind(err), args, f.thread), true); werr != nil {
				return werr
			}
		}
		return err
	}
}

// one builds the same input for every interrupt named.
func oneInput(in decide.Input) func(*client.Interrupt) (decide.Input, error) {
	return func(*client.Interrupt) (decide.Input, error) { return in, nil }
}

// printEdits writes, for each edit among the drafts, the change to the
// arguments (present.ArgsChange): what a key left out of --args drops is
// seen before it is sent.
func printEdits(e *env, drafts []decide.Draft) {
	for _, d := range drafts {
		for i, dec := range d.Decisions {
			if dec.Type == client.Edit && i < len(d.Interrupt.Actions) {
				a := d.Interrupt.Actions[i]
				present.ArgsChange(e.stderr, a.Name, d.Interrupt.ID, a.Args, dec.Args)
			}
		}
	}
}

// decide sends one input, made by one, to every action or, with --action
// N, to action N and --others to the rest.
func (e *env) decide(ctx context.Context, ids []string, f *sendFlags, one func(*client.Interrupt) (decide.Input, error)) error {
	return e.send(ctx, ids, f, func(it *client.Interrupt) ([]decide.Input, error) {
		in, err := one(it)
		if err != nil {
			return nil, err
		}
		n := it.Slots()
		out := make([]decide.Input, n)
		if f.action == 0 {
			if f.others != "" {
				return nil, usageErr("--others needs --action N")
			}
			for i := range out {
				out[i] = in
			}
			return out, nil
		}
		if f.action < 1 || f.action > n {
			return nil, usageErr("--action %d: this interrupt has %d action(s)", f.action, n)
		}
		var other decide.Input
		if n > 1 {
			if f.others == "" && in.Type != "" {
				// Refused whatever --others says: said before asking for it.
				if err := it.CheckAllowed(f.action-1, in.Type); err != nil {
					return nil, refusalOf(err, it, e.again())
				}
			}
			if f.others == "" {
				return nil, usageErr("--action %d: say what to do with the other %d action(s) with --others approve|reject[:MESSAGE]|respond:MESSAGE|ignore", f.action, n-1)
			}
			if other, err = parseOthers(f.others); err != nil {
				return nil, err
			}
		}
		for i := range out {
			out[i] = other
		}
		out[f.action-1] = in
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
		return refusedErr("refused, nothing sent: %q is not allowed for any of this interrupt's %d actions (%s show %s says how to answer it)",
			t, len(it.Actions), again, safe(present.ShortID(it.ID)))
	}
	return usageErr("this interrupt has %d actions: say which one with --action N (%s is allowed for action %s), and what to do with the others with --others",
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
	return decide.Input{}, usageErr("--others %q: use approve, reject[:MESSAGE], respond:MESSAGE or ignore", s)
}

// send turns typed input into decisions by the rules the TUI shares
// (decide.Decisions) and sends them.
func (e *env) send(ctx context.Context, ids []string, f *sendFlags, build func(*client.Interrupt) ([]decide.Input, error)) error {
	return e.sendDrafts(ctx, ids, f, func(it client.Interrupt) (decide.Draft, error) {
		in, err := build(&it)
		if err != nil {
			return decide.Draft{}, err
		}
		ds, err := decide.Decisions(&it, in)
		if err != nil {
			return decide.Draft{}, refusalOf(err, &it, e.again())
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
		return refusedErr("refused, nothing sent: %v (%s show %s says how to answer it)", err, again, id)
	case errors.As(err, &refused) && refused.NoMessage:
		return usageErr("nothing sent: %v: give it with -m TEXT", err)
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
		return refusedErr("refused, nothing sent: %v", err)
	case errors.As(err, &refused):
		return usageErr("nothing sent: %v", err) // incomplete or malformed: 2, not a refusal (4)
	}
	return err
}

// sendDrafts is the one path by which the CLI sends anything: find the
// interrupts, build their drafts, and hand them to the decision pipeline.
func (e *env) sendDrafts(ctx context.Context, ids []string, f *sendFlags, build func(client.Interrupt) (decide.Draft, error)) error {
	if len(ids) == 0 && f.thread == "" {
		return usageErr("give an interrupt id (or several), or --thread THREAD (see hitl list)")
	}
	a, err := e.open(f.wait)
	if err != nil {
		return err
	}
	a.reconcile(ctx, e)
	its, err := a.FindAll(ctx, ids, f.thread)
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
	return e.sendPrepared(ctx, a, drafts, f)
}

// sendPrepared hands drafts to the decision pipeline: one resume per
// thread where the backend takes several, each outcome reported.
func (e *env) sendPrepared(ctx context.Context, a *app, drafts []decide.Draft, f *sendFlags) error {
	p := a.Pipeline()
	subs, err := p.Prepare(drafts)
	if err != nil {
		var de *decide.DraftError
		if errors.As(err, &de) {
			return refusalOf(de.Err, &drafts[de.Draft].Interrupt, e.again()) // which, and how to answer it
		}
		return refusal(err)
	}
	if err := a.endsAlone(drafts); err != nil {
		return err
	}
	printEdits(e, drafts)
	for _, d := range drafts {
		ending := client.EndingNote(&d.Interrupt.Payload, d.Decisions)
		for _, note := range client.Consequences(&d.Interrupt.Payload, d.Decisions) {
			if note == ending && !f.dryRun {
				continue // the result says what the ending did, once it is done
			}
			fmt.Fprintln(e.stderr, "note:", note)
		}
		if note := present.KeptAnswerNote(d.Interrupt); note != "" {
			fmt.Fprintln(e.stderr, "note:", note)
		} else if d.Interrupt.Retry {
			fmt.Fprintf(e.stderr, "note: the last run of thread %s failed; this answers %s again (if the run fails the same way, the graph kept the first answer)\n",
				safe(d.Interrupt.ThreadID), safe(present.ShortID(d.Interrupt.ID)))
		}
		// Claims are advice: said, never in the way.
		if others := d.Interrupt.Others(a.Journal.ID(), time.Now()); len(others) > 0 {
			fmt.Fprintf(e.stderr, "note: %s: %s; your decision may race theirs\n",
				safe(present.ShortID(d.Interrupt.ID)), safe(present.Editing(others, time.Now())))
		}
	}
	if f.dryRun {
		return printDryRun(e, subs)
	}
	code := review.OK
	for _, s := range subs {
		res := p.Send(ctx, s)
		for _, w := range res.Warnings {
			fmt.Fprintln(e.stderr, "hitl: warning:", w)
		}
		c, err := review.OfResult(res)
		code = review.Worse(code, c)
		switch {
		case f.asJSON:
			if err := writeJSON(e.stdout, review.ResultJSON(res), true); err != nil {
				return err
			}
		case res.Kind == decide.Sent:
			fmt.Fprintln(e.stdout, res.Text())
			if res.Run.Reply != "" {
				fmt.Fprintf(e.stdout, "Agent: %s\n", indent(safeBlock(res.Run.Reply), "  ")[2:])
			}
		}
		if err != nil && !f.asJSON {
			fmt.Fprintln(e.stderr, "hitl:", err)
		}
	}
	if code != review.OK {
		return &review.Error{Kind: code, Err: errAlreadyPrinted}
	}
	return nil
}

// endsAlone refuses, before anything is said or sent, to end the work of a
// thread that also waits at other interrupts (fan-out branches): ending it
// would drop them too. The backend refuses it as well; refusing here keeps
// the note that says what an ending does from being printed for nothing.
// The rule and its words are decide.EndsAlone's, as in the TUI.
func (a *app) endsAlone(drafts []decide.Draft) error {
	if err := decide.EndsAlone(drafts, a.Waiting); err != nil {
		return refusedErr("refused, nothing sent: %s", err.Error())
	}
	return nil
}

// errAlreadyPrinted marks an error whose message went out already.
var errAlreadyPrinted = errors.New("")

// printDryRun prints what would be sent: the resume value (one interrupt),
// or the resume map of each submission.
func printDryRun(e *env, subs []*client.Submission) error {
	if len(subs) == 1 && len(subs[0].Items) == 1 {
		r := subs[0].Items[0].Resume
		if r.Continue {
			fmt.Fprintln(e.stdout, `(continue: a run with no input and no resume value)`)
			return nil
		}
		if r.End != nil {
			fmt.Fprintln(e.stdout, review.EndingText(r.End))
			return nil
		}
		return writeJSON(e.stdout, r.Value, true)
	}
	for _, s := range subs {
		m := map[string]any{}
		for _, it := range s.Items {
			m[it.Interrupt.ID] = review.ResumeJSON(it.Resume)
		}
		fmt.Fprintf(e.stdout, "thread %s, one resume:\n", safe(s.ThreadID))
		if err := writeJSON(e.stdout, m, true); err != nil {
			return err
		}
	}
	return nil
}
