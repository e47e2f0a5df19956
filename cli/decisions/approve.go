package decisions

import (
	"context"
	"fmt"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/review"
)

// ApproveOptions are hitl approve's: one by one, or in bulk by tool.
type ApproveOptions struct {
	*Options
	Always bool   // approve for good what an opencode request's always patterns name
	All    bool   // --all: every pending interrupt of Tool
	Tool   string // with --all: the tool whose calls are approved
	Match  string // with --all: only interrupts whose summary or arguments contain it
}

// Approve approves every action of the interrupts named (or --action N),
// or continues a breakpoint; with --all, in bulk (approveAll).
func Approve(ctx context.Context, o *ApproveOptions) error {
	if o.Always && (o.All || o.Tool != "") {
		return review.Usagef("--always approves one request for good: it does not go with --all")
	}
	if o.All || o.Tool != "" || o.Match != "" {
		if !o.All || o.Tool == "" {
			return review.Usagef("bulk approve needs both --all and --tool NAME (the tool whose calls are approved)")
		}
		if len(o.IDs) > 0 || o.Thread != "" || o.Action != 0 {
			return review.Usagef("--all takes no interrupt id, --thread or --action: it picks by --tool, --graph and --match")
		}
		return approveAll(ctx, o.Options, o.Tool, o.Match)
	}
	return Decide(ctx, o.Options, One(decide.Input{Type: client.Approve, Always: o.Always}))
}

// approveAll approves, in bulk, the pending interrupts whose calls are all
// to tool (and that match), after listing them; those it cannot approve
// are named with why.
func approveAll(ctx context.Context, o *Options, tool, match string) error {
	s, err := o.open(ctx)
	if err != nil {
		return err
	}
	its, err := s.Pending(ctx)
	if err != nil {
		return err
	}
	// Through a hub's door the hub names the reviewer (the token's), not
	// this machine: an approval is "you", and the hub refuses one given
	// twice.
	reviewer := s.Reviewer
	if s.Ruled {
		reviewer = ""
	}
	drafts, left := review.ApprovalsOfTool(its, reviewer, tool, match)
	var refused []string
	for _, l := range left {
		it := l.Interrupt
		line := fmt.Sprintf("%s  thread %s  %s", present.ShortID(it.ID), present.ThreadName(it.ThreadID), present.Summary(it))
		why := l.Why()
		switch {
		case len(l.Others) > 0:
			why += " (approve it by id after reading it)"
		case l.Standing != nil:
			why += fmt.Sprintf("; %s show %s shows it: give that same decision by id to confirm it", o.Again, present.ShortID(it.ID))
		}
		refused = append(refused, line+"\n    not approved: "+why)
	}
	if len(drafts) == 0 && len(refused) == 0 {
		return review.WithAbout(review.Nothingf("no pending interrupt calls the tool %s%s: nothing to approve (hitl list shows what waits)", tool, matchText(match)), "nothing-matched", "", nil)
	}
	list := o.Stdout
	if o.JSON {
		list = o.Stderr // stdout is for the JSON objects only
	}
	if len(drafts) > 0 {
		verb := "Approving"
		if o.DryRun {
			verb = "Would approve"
		}
		// What sending does to each, and to them all: sent, or only
		// recorded as an approval under a team's rule.
		var effects []review.Effect
		var ids []string
		for _, d := range drafts {
			effects = append(effects, review.Does(d.Interrupt, reviewer, 0, s.Ruled))
			ids = append(ids, d.Interrupt.ID)
		}
		if subs, err := s.Pipeline().Prepare(drafts); err == nil { // sendPrepared says why not
			var resumes [][]string
			for _, sub := range subs {
				resumes = append(resumes, sub.IDs())
			}
			effects = review.InOneResume(effects, ids, resumes)
		}
		fmt.Fprintf(list, "%s %d %s of %s%s:\n", verb, len(drafts), plural(len(drafts), "interrupt", "interrupts"), tool, matchText(match))
		for i, d := range drafts {
			it := d.Interrupt
			fmt.Fprintf(list, "  %s  thread %s  %s\n    %s\n", present.ShortID(it.ID), present.ThreadName(it.ThreadID), present.Summary(it), effects[i].Words())
		}
		if sum := review.Summary(effects); sum != "sends them once" {
			fmt.Fprintf(list, "In all, this %s.\n", sum)
		}
	}
	if len(refused) > 0 {
		fmt.Fprintf(o.Stderr, "Not approved: %d %s:\n", len(refused), plural(len(refused), "interrupt", "interrupts"))
		for _, r := range refused {
			fmt.Fprintln(o.Stderr, "  "+r)
		}
	}
	if len(drafts) == 0 {
		return review.Refusedf("nothing approved")
	}
	err = sendPrepared(ctx, o, s, drafts)
	if o.DryRun {
		// sendPrepared printed each resume value, as a single --dry-run does.
		if err == nil {
			fmt.Fprintln(o.Stdout, "--dry-run: nothing sent.")
		}
		return err
	}
	if err == nil && len(refused) > 0 {
		return &review.Error{Kind: review.Refused, Err: ErrPrinted}
	}
	return err
}

func matchText(match string) string {
	if match == "" {
		return ""
	}
	return fmt.Sprintf(" matching %q", match)
}

// Reject rejects the actions with -m's message; stop also ends the
// thread's work there (reject --stop).
func Reject(ctx context.Context, o *Options, stop bool) error {
	if stop && o.Action != 0 {
		return review.Usagef("--stop rejects every call of the interrupt: it does not take --action")
	}
	return Decide(ctx, o, One(decide.Input{Type: client.Reject, Text: o.Message, Stop: stop}))
}
