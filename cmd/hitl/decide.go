package main

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/cli/decisions"
	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/review"
)

// The decision commands: their cobra commands and flags. What they do,
// and what they print, is cli/decisions'.

// sendFlags binds the flags every decision command shares to o, and has
// the command's run given its I/O, its ids and how hitl was called. With
// --json, what ends the command before a resume's outcome is printed (no
// longer waits, refused, …) is an object too.
func (e *env) sendFlags(cmd *cobra.Command, o *decisions.Options, withAction bool) {
	fl := cmd.Flags()
	if withAction {
		fl.IntVar(&o.Action, "action", 0, "apply to action N only (1-based); the others take --others")
		fl.StringVar(&o.Others, "others", "", "with --action: decision for every other action: approve, reject[:MESSAGE], respond:MESSAGE or ignore")
	}
	fl.StringVar(&o.Thread, "thread", "", "every waiting interrupt of this thread (id or 4+ characters of it), in one resume")
	fl.BoolVar(&o.JSON, "json", false, "print the outcome as JSON")
	fl.BoolVar(&o.DryRun, "dry-run", false, "print the exact resume value and send nothing")
	fl.DurationVar(&o.Wait, "wait", 60*time.Second, "how long to follow the run after sending")
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		o.Stdin, o.Stdout, o.Stderr, o.Again, o.IDs = e.stdin, e.stdout, e.stderr, e.again(), args
		o.Open = func(follow time.Duration) (*review.Session, error) {
			a, err := e.open(follow)
			if err != nil {
				return nil, err
			}
			return a.Session, nil
		}
		err := run(c, args)
		if err != nil && o.JSON && !o.DryRun && !errors.Is(err, errAlreadyPrinted) {
			if werr := writeJSON(e.stdout, review.ErrorJSON(err, exitKind(err), args, o.Thread), true); werr != nil {
				return werr
			}
		}
		return err
	}
}

func respondCmd(e *env) *cobra.Command {
	o := &decisions.RespondOptions{Options: &decisions.Options{}}
	cmd := &cobra.Command{
		Use:   "respond ID... -m TEXT [--answer TEXT]... | --field NAME=VALUE... | --value JSON",
		Short: "Respond with text: a reply, feedback, answers to questions, or a form's fields",
		Long: `respond sends text: a reply to a prompt, feedback with answers to questions, or
the answer to a payload of no known shape (where text that starts with { or [
is sent as that JSON, as the reviewer's editor does).

An interrupt that gives the schema of its answer (a response_schema; hitl show
lists its fields) is answered with --field NAME=VALUE, once per field, typed by
the schema: true or false for a boolean, a number for a number, one of the
listed values for a choice, text for text (NAME=@FILE reads it from a file); a
list takes the flag once per item; a nested field is named owner.email. Or give
the whole answer as --value JSON. The answer is checked against the schema
before anything is sent; a mismatch names the field and exits 2.`,
		RunE: func(cmd *cobra.Command, _ []string) error { return decisions.Respond(cmd.Context(), o) },
	}
	cmd.Flags().StringVarP(&o.Message, "message", "m", "", "the reply / feedback text")
	cmd.Flags().StringArrayVar(&o.Answers, "answer", nil, "answer to the next question, in order (repeatable)")
	cmd.Flags().StringArrayVar(&o.Fields, "field", nil, "NAME=VALUE for a field of the interrupt's answer schema (repeatable; NAME=@FILE reads a file)")
	cmd.Flags().StringVar(&o.Value, "value", "", "the whole answer as JSON, checked against the answer schema")
	e.sendFlags(cmd, o.Options, true)
	return cmd
}

func editCmd(e *env) *cobra.Command {
	o := &decisions.EditOptions{Options: &decisions.Options{}}
	cmd := &cobra.Command{
		Use:   "edit ID --set KEY=VALUE... | --args FILE|- | --field NAME=VALUE... [--action N] [--name TOOL]",
		Short: "Approve an action with edited arguments",
		Long: `edit approves an action with new arguments. Three ways to give them:

  --set KEY=VALUE   changes one argument and keeps the others (repeatable;
                    VALUE is read as JSON when it is JSON: 42, true, ["a"],
                    "quoted"; else as text; KEY is a top-level key)
  --args FILE|-     the whole new arguments object: it REPLACES the proposed
                    one, and a key it leaves out is dropped (--set on top of
                    it changes that object)
  --field NAME=VALUE for an action with an args_schema: typed by the schema
                    as respond --field is; NAME= clears a field

Before sending, the change to the arguments is printed on stderr, as a diff
of the proposed and the sent arguments.`,
		Args: exactArgs(1, "an interrupt id"),
		RunE: func(cmd *cobra.Command, _ []string) error { return decisions.Edit(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.ArgsFile, "args", "", "file with the whole new arguments as JSON, or - for standard input (replaces them: keys left out are dropped)")
	cmd.Flags().StringArrayVar(&o.Sets, "set", nil, "KEY=VALUE: change one argument, keep the others (repeatable; VALUE as JSON when it is JSON, else text)")
	cmd.Flags().StringArrayVar(&o.Fields, "field", nil, "NAME=VALUE for an argument of the action's args_schema (repeatable)")
	cmd.Flags().StringVar(&o.Name, "name", "", "also rename the tool call")
	e.sendFlags(cmd, o.Options, true)
	return cmd
}

func decideCmd(e *env) *cobra.Command {
	o := &decisions.Options{}
	var file string
	cmd := &cobra.Command{
		Use:   "decide ID... --decisions FILE|-",
		Short: "Send one decision per action from JSON (any mix; several interrupts of a thread in one resume)",
		Long: `decide reads a JSON array with one decision per action, in order, e.g.

  [{"type":"approve"},
   {"type":"edit","args":{"channel":"#ops","text":"done"}},
   {"type":"reject","message":"not on a Friday"}]

Fields: type (approve, edit, reject, respond, ignore), args and name (edit),
message (reject, respond), answers (questions), value (raw JSON, raw shape).

For several interrupts (several ids, or --thread), the file is an object from
interrupt id (or 4+ characters of it) to such an array; the interrupts of one
thread are answered in one resume.`,
		RunE: func(cmd *cobra.Command, _ []string) error { return decisions.FromFile(cmd.Context(), o, file) },
	}
	cmd.Flags().StringVar(&file, "decisions", "", "file with the decisions as JSON, or - for standard input")
	e.sendFlags(cmd, o, false)
	return cmd
}

func resumeCmd(e *env) *cobra.Command {
	o := &decisions.Options{}
	var value string
	cmd := &cobra.Command{
		Use:   "resume ID --value JSON",
		Short: "Send exactly this resume value (escape hatch: no checks on its shape)",
		Args:  exactArgs(1, "an interrupt id"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return decisions.Resume(cmd.Context(), o, value) },
	}
	cmd.Flags().StringVar(&value, "value", "", "the resume value, as JSON")
	e.sendFlags(cmd, o, false)
	return cmd
}

func approveCmd(e *env) *cobra.Command {
	o := &decisions.ApproveOptions{Options: &decisions.Options{}}
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

--always approves for good what the request allows (hitl show lists it): an
opencode permission request's "always" patterns, a Gemini CLI shell command's root
commands; the agent stops asking for them. Without it, an approval is for this
one request.`,
		RunE: func(cmd *cobra.Command, _ []string) error { return decisions.Approve(cmd.Context(), o) },
	}
	e.sendFlags(cmd, o.Options, true)
	cmd.Flags().BoolVar(&o.Always, "always", false, "approve for good what the request allows (opencode's always patterns, a Gemini CLI command's root commands): the agent stops asking for them")
	cmd.Flags().BoolVar(&o.All, "all", false, "approve every pending interrupt of --tool NAME (listed first)")
	cmd.Flags().StringVar(&o.Tool, "tool", "", "with --all: the tool whose calls are approved")
	cmd.Flags().StringVar(&o.Match, "match", "", "with --all: only interrupts whose summary or arguments contain this text")
	return cmd
}

func rejectCmd(e *env) *cobra.Command {
	o := &decisions.Options{}
	var stop bool
	cmd := &cobra.Command{
		Use:   "reject ID... [-m TEXT] [--stop]",
		Short: "Reject every action (or --action N), with a message / reason",
		Long: `reject rejects the actions, with a message the agent reads as the tool's result.

After a reject the agent's model runs again and may propose the same call
again, and again. --stop rejects every call and ends the thread's work there:
the message is in the conversation as each call's result, the tool does not
run, the model is not asked again and the thread ends idle (LangGraph only).`,
		RunE: func(cmd *cobra.Command, _ []string) error { return decisions.Reject(cmd.Context(), o, stop) },
	}
	cmd.Flags().StringVarP(&o.Message, "message", "m", "", "why: sent to the agent as the reject message / reason")
	cmd.Flags().BoolVar(&stop, "stop", false, "and end the thread's work there: the agent is not run again on the rejection")
	e.sendFlags(cmd, o, true)
	return cmd
}

func dismissCmd(e *env) *cobra.Command {
	o := &decisions.Options{}
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			return decisions.Decide(cmd.Context(), o, decisions.One(decide.Input{Type: client.Dismiss, Text: o.Message}))
		},
	}
	cmd.Flags().StringVarP(&o.Message, "message", "m", "", "the reason: each tool call's result in the conversation, and in the audit log")
	e.sendFlags(cmd, o, false)
	return cmd
}

func ignoreCmd(e *env) *cobra.Command {
	o := &decisions.Options{}
	cmd := &cobra.Command{
		Use:   "ignore ID...",
		Short: "Ignore (Agent Inbox interrupts that allow it)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return decisions.Decide(cmd.Context(), o, decisions.One(decide.Input{Type: client.Ignore}))
		},
	}
	e.sendFlags(cmd, o, true)
	return cmd
}
