package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/review"
)

func approveCmd(e *env) *cobra.Command {
	f := &sendFlags{}
	var all, always bool
	var tool, match string
	cmd := &cobra.Command{
		Use:   "approve ID... [--always] | --thread THREAD | --all --tool NAME [--match TEXT]",
		Short: "Approve every action (or --action N), or continue a breakpoint",
		Long: `approve approves every action of the interrupts named (or --action N), or
continues a breakpoint.

--all --tool NAME approves, in bulk, every pending interrupt whose calls are all
to the tool NAME (--graph G and --match TEXT narrow it: TEXT is looked for in the
summary and the arguments). It first lists each interrupt it approves (id, thread,
the arguments' summary) and each it refuses (approve not allowed, or other tools
among its calls), then sends one resume per thread (the branches of a thread
together) and reports each outcome. --dry-run lists them, prints each resume
value (per thread) and sends nothing.

--always approves for good what an opencode permission request names as its
"always" patterns (hitl show lists them): opencode stops asking for them. Without
it, an approval is for this one request.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if always && (all || tool != "") {
				return usageErr("--always approves one request for good: it does not go with --all")
			}
			if all || tool != "" || match != "" {
				if !all || tool == "" {
					return usageErr("bulk approve needs both --all and --tool NAME (the tool whose calls are approved)")
				}
				if len(args) > 0 || f.thread != "" || f.action != 0 {
					return usageErr("--all takes no interrupt id, --thread or --action: it picks by --tool, --graph and --match")
				}
				return e.approveAll(cmd.Context(), f, tool, match)
			}
			return e.decide(cmd.Context(), args, f, oneInput(decide.Input{Type: client.Approve, Always: always}))
		},
	}
	f.register(e, cmd, true)
	cmd.Flags().BoolVar(&always, "always", false, "approve for good what the request's always patterns name (opencode): the agent stops asking for them")
	cmd.Flags().BoolVar(&all, "all", false, "approve every pending interrupt of --tool NAME (listed first)")
	cmd.Flags().StringVar(&tool, "tool", "", "with --all: the tool whose calls are approved")
	cmd.Flags().StringVar(&match, "match", "", "with --all: only interrupts whose summary or arguments contain this text")
	return cmd
}

// approveAll approves, in bulk, the pending interrupts whose calls are all
// to tool (and that match), after listing them; those it cannot approve
// are named with why.
func (e *env) approveAll(ctx context.Context, f *sendFlags, tool, match string) error {
	a, err := e.open(f.wait)
	if err != nil {
		return err
	}
	a.reconcile(ctx, e)
	its, err := a.Pending(ctx)
	if err != nil {
		return err
	}
	drafts, left := review.ApprovalsOfTool(its, tool, match)
	var refused []string
	for _, l := range left {
		it := l.Interrupt
		line := fmt.Sprintf("%s  thread %s  %s", present.ShortID(it.ID), present.ThreadName(it.ThreadID), present.Summary(it))
		if len(l.Others) > 0 {
			refused = append(refused, line+"\n    not approved: it also calls "+strings.Join(l.Others, ", ")+" (approve it by id after reading it)")
		} else {
			refused = append(refused, line+"\n    not approved: approve is not allowed here (allowed: "+present.Types(l.Allowed)+")")
		}
	}
	if len(drafts) == 0 && len(refused) == 0 {
		return about(nothingErr("no pending interrupt calls the tool %s%s: nothing to approve (hitl list shows what waits)", tool, matchText(match)), "nothing-matched", "", nil)
	}
	list := e.stdout
	if f.asJSON {
		list = e.stderr // stdout is for the JSON objects only
	}
	if len(drafts) > 0 {
		verb := "Approving"
		if f.dryRun {
			verb = "Would approve"
		}
		fmt.Fprintf(list, "%s %d %s of %s%s:\n", verb, len(drafts), plural(len(drafts), "interrupt", "interrupts"), tool, matchText(match))
		for _, d := range drafts {
			it := d.Interrupt
			fmt.Fprintf(list, "  %s  thread %s  %s\n", present.ShortID(it.ID), present.ThreadName(it.ThreadID), present.Summary(it))
		}
	}
	if len(refused) > 0 {
		fmt.Fprintf(e.stderr, "Not approved: %d %s:\n", len(refused), plural(len(refused), "interrupt", "interrupts"))
		for _, r := range refused {
			fmt.Fprintln(e.stderr, "  "+r)
		}
	}
	if len(drafts) == 0 {
		return refusedErr("nothing approved")
	}
	err = e.sendPrepared(ctx, a, drafts, f)
	if f.dryRun {
		// sendPrepared printed each resume value, as a single --dry-run does.
		if err == nil {
			fmt.Fprintln(e.stdout, "--dry-run: nothing sent.")
		}
		return err
	}
	if err == nil && len(refused) > 0 {
		return &exitErr{exitRefused, errAlreadyPrinted}
	}
	return err
}

func matchText(match string) string {
	if match == "" {
		return ""
	}
	return fmt.Sprintf(" matching %q", match)
}

func rejectCmd(e *env) *cobra.Command {
	f := &sendFlags{}
	var stop bool
	cmd := &cobra.Command{
		Use:   "reject ID... [-m TEXT] [--stop]",
		Short: "Reject every action (or --action N), with a message / reason",
		Long: `reject rejects the actions, with a message the agent reads as the tool's result.

After a reject the agent's model runs again and may propose the same call
again, and again. --stop rejects every call and ends the thread's work there:
the message is in the conversation as each call's result, the tool does not
run, the model is not asked again and the thread ends idle (LangGraph only).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if stop && f.action != 0 {
				return usageErr("--stop rejects every call of the interrupt: it does not take --action")
			}
			return e.decide(cmd.Context(), args, f, func(*client.Interrupt) (decide.Input, error) {
				return decide.Input{Type: client.Reject, Text: f.message, Stop: stop}, nil
			})
		},
	}
	cmd.Flags().StringVarP(&f.message, "message", "m", "", "why: sent to the agent as the reject message / reason")
	cmd.Flags().BoolVar(&stop, "stop", false, "and end the thread's work there: the agent is not run again on the rejection")
	f.register(e, cmd, true)
	return cmd
}

func dismissCmd(e *env) *cobra.Command {
	f := &sendFlags{}
	cmd := &cobra.Command{
		Use:   "dismiss ID... [-m REASON]",
		Short: "End the thread's work at an interrupt without answering it (the tool never runs)",
		Long: `dismiss ends the thread's work at the interrupt without resuming it (Agent
Inbox's "mark as resolved"): the tools it asks about never run, the agent is not
run again, and the thread ends idle. Each pending tool call gets, as its result in
the conversation, "Dismissed by the reviewer" and the reason; an interrupt without
tool calls (a prompt, an Agent Inbox request) gets nothing written in the thread,
and the reason stays in hitl's audit log (hitl history). Audited and verified as
every decision; history shows it as "dismissed" (LangGraph only).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.decide(cmd.Context(), args, f, oneInput(decide.Input{Type: client.Dismiss, Text: f.message}))
		},
	}
	cmd.Flags().StringVarP(&f.message, "message", "m", "", "the reason: each tool call's result in the conversation, and in the audit log")
	f.register(e, cmd, false)
	return cmd
}

func ignoreCmd(e *env) *cobra.Command {
	f := &sendFlags{}
	cmd := &cobra.Command{
		Use:   "ignore ID...",
		Short: "Ignore (Agent Inbox interrupts that allow it)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.decide(cmd.Context(), args, f, oneInput(decide.Input{Type: client.Ignore}))
		},
	}
	f.register(e, cmd, true)
	return cmd
}
