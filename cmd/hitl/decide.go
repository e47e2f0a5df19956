package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/present"
)

// sendFlags are shared by every command that sends a decision.
type sendFlags struct {
	action  int    // 1-based; 0 means every action
	others  string // decision for the other actions when action is set
	message string
	answers []string
	asJSON  bool
	dryRun  bool
	wait    time.Duration
}

func (f *sendFlags) register(cmd *cobra.Command, withAction bool) {
	fl := cmd.Flags()
	if withAction {
		fl.IntVar(&f.action, "action", 0, "apply to action N only (1-based); the others take --others")
		fl.StringVar(&f.others, "others", "", "with --action: decision for every other action: approve, reject[:MESSAGE], respond:MESSAGE or ignore")
	}
	fl.BoolVar(&f.asJSON, "json", false, "print the outcome as JSON")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the exact resume value and send nothing")
	fl.DurationVar(&f.wait, "wait", 60*time.Second, "how long to follow the run after sending")
}

func approveCmd(e *env) *cobra.Command {
	f := &sendFlags{}
	cmd := &cobra.Command{
		Use:   "approve ID",
		Short: "Approve every action (or --action N), or continue a breakpoint",
		Args:  exactArgs(1, "an interrupt id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.decide(cmd.Context(), args[0], f, func(*client.Interrupt) (client.Decision, error) {
				return client.Decision{Type: client.Approve}, nil
			})
		},
	}
	f.register(cmd, true)
	return cmd
}

func rejectCmd(e *env) *cobra.Command {
	f := &sendFlags{}
	cmd := &cobra.Command{
		Use:   "reject ID [-m TEXT]",
		Short: "Reject every action (or --action N), with a message / reason",
		Args:  exactArgs(1, "an interrupt id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.decide(cmd.Context(), args[0], f, func(*client.Interrupt) (client.Decision, error) {
				return client.Decision{Type: client.Reject, Message: f.message}, nil
			})
		},
	}
	cmd.Flags().StringVarP(&f.message, "message", "m", "", "why: sent to the agent as the reject message / reason")
	f.register(cmd, true)
	return cmd
}

func respondCmd(e *env) *cobra.Command {
	f := &sendFlags{}
	cmd := &cobra.Command{
		Use:   "respond ID -m TEXT [--answer TEXT]...",
		Short: "Respond with text: a reply, feedback, and answers to questions",
		Args:  exactArgs(1, "an interrupt id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.decide(cmd.Context(), args[0], f, func(*client.Interrupt) (client.Decision, error) {
				return client.Decision{Type: client.Respond, Message: f.message, Answers: f.answers}, nil
			})
		},
	}
	cmd.Flags().StringVarP(&f.message, "message", "m", "", "the reply / feedback text")
	cmd.Flags().StringArrayVar(&f.answers, "answer", nil, "answer to the next question, in order (repeatable)")
	f.register(cmd, true)
	return cmd
}

func ignoreCmd(e *env) *cobra.Command {
	f := &sendFlags{}
	cmd := &cobra.Command{
		Use:   "ignore ID",
		Short: "Ignore (Agent Inbox interrupts that allow it)",
		Args:  exactArgs(1, "an interrupt id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.decide(cmd.Context(), args[0], f, func(*client.Interrupt) (client.Decision, error) {
				return client.Decision{Type: client.Ignore}, nil
			})
		},
	}
	f.register(cmd, true)
	return cmd
}

func editCmd(e *env) *cobra.Command {
	f := &sendFlags{}
	var argsFile, name string
	cmd := &cobra.Command{
		Use:   "edit ID --args FILE|- [--action N] [--name TOOL]",
		Short: "Approve an action with edited arguments",
		Args:  exactArgs(1, "an interrupt id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if argsFile == "" {
				return usageErr("edit needs --args FILE (or - for standard input) with the new arguments as a JSON object")
			}
			raw, err := readArg(e.stdin, argsFile)
			if err != nil {
				return err
			}
			return e.decide(cmd.Context(), args[0], f, func(it *client.Interrupt) (client.Decision, error) {
				if len(it.Actions) > 1 && f.action == 0 {
					return client.Decision{}, usageErr("this interrupt has %d actions: say which one with --action N, and what to do with the others with --others", len(it.Actions))
				}
				return client.Decision{Type: client.Edit, Args: raw, Name: name}, nil
			})
		},
	}
	cmd.Flags().StringVar(&argsFile, "args", "", "file with the edited arguments as JSON, or - for standard input")
	cmd.Flags().StringVar(&name, "name", "", "also rename the tool call")
	f.register(cmd, true)
	return cmd
}

func decideCmd(e *env) *cobra.Command {
	f := &sendFlags{}
	var file string
	cmd := &cobra.Command{
		Use:   "decide ID --decisions FILE|-",
		Short: "Send one decision per action from a JSON array (any mix)",
		Long: `decide reads a JSON array with one decision per action, in order, e.g.

  [{"type":"approve"},
   {"type":"edit","args":{"channel":"#ops","text":"done"}},
   {"type":"reject","message":"not on a Friday"}]

Fields: type (approve, edit, reject, respond, ignore), args and name (edit),
message (reject, respond), answers (questions), value (raw JSON, raw shape).`,
		Args: exactArgs(1, "an interrupt id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if file == "" {
				return usageErr("decide needs --decisions FILE (or - for standard input)")
			}
			raw, err := readArg(e.stdin, file)
			if err != nil {
				return err
			}
			var ds []client.Decision
			if err := json.Unmarshal(raw, &ds); err != nil {
				return usageErr("--decisions: not a JSON array of decisions: %v", err)
			}
			return e.send(cmd.Context(), args[0], f, func(*client.Interrupt) ([]client.Decision, error) { return ds, nil })
		},
	}
	cmd.Flags().StringVar(&file, "decisions", "", "file with a JSON array of decisions, or - for standard input")
	f.register(cmd, false)
	return cmd
}

func resumeCmd(e *env) *cobra.Command {
	f := &sendFlags{}
	var value string
	cmd := &cobra.Command{
		Use:   "resume ID --value JSON",
		Short: "Send exactly this resume value (escape hatch: no checks on its shape)",
		Args:  exactArgs(1, "an interrupt id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !json.Valid([]byte(value)) {
				return usageErr("--value must be valid JSON (quote a string as '\"text\"')")
			}
			return e.sendResume(cmd.Context(), args[0], f, func(*app, *client.Interrupt) ([]client.Decision, client.Resume, error) {
				return nil, client.Resume{Value: json.RawMessage(value)}, nil
			})
		},
	}
	cmd.Flags().StringVar(&value, "value", "", "the resume value, as JSON")
	f.register(cmd, false)
	return cmd
}

// readArg reads a file, or standard input for "-".
func readArg(stdin io.Reader, name string) ([]byte, error) {
	if name == "-" {
		b, err := io.ReadAll(io.LimitReader(stdin, 16<<20))
		if err != nil {
			return nil, fmt.Errorf("cannot read standard input: %w", err)
		}
		return b, nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, &exitErr{exitUsage, fmt.Errorf("cannot read %s: %w", name, err)}
	}
	return b, nil
}

// decide sends one decision, made by one, to every action or, with
// --action N, to action N and --others to the rest.
func (e *env) decide(ctx context.Context, id string, f *sendFlags, one func(*client.Interrupt) (client.Decision, error)) error {
	return e.send(ctx, id, f, func(it *client.Interrupt) ([]client.Decision, error) {
		d, err := one(it)
		if err != nil {
			return nil, err
		}
		n := it.Slots()
		ds := make([]client.Decision, n)
		if f.action == 0 {
			if f.others != "" {
				return nil, usageErr("--others needs --action N")
			}
			for i := range ds {
				ds[i] = d
			}
			return ds, nil
		}
		if f.action < 1 || f.action > n {
			return nil, usageErr("--action %d: this interrupt has %d action(s)", f.action, n)
		}
		var other client.Decision
		if n > 1 {
			if f.others == "" {
				return nil, usageErr("--action %d: say what to do with the other %d action(s) with --others approve|reject[:MESSAGE]|respond:MESSAGE|ignore", f.action, n-1)
			}
			if other, err = parseOthers(f.others); err != nil {
				return nil, err
			}
		}
		for i := range ds {
			ds[i] = other
		}
		ds[f.action-1] = d
		return ds, nil
	})
}

func parseOthers(s string) (client.Decision, error) {
	t, msg, _ := strings.Cut(s, ":")
	switch client.DecisionType(t) {
	case client.Approve, client.Ignore:
		return client.Decision{Type: client.DecisionType(t)}, nil
	case client.Reject, client.Respond:
		return client.Decision{Type: client.DecisionType(t), Message: msg}, nil
	}
	return client.Decision{}, usageErr("--others %q: use approve, reject[:MESSAGE], respond:MESSAGE or ignore", s)
}

// send encodes the decisions against the interrupt as it is now and sends them.
func (e *env) send(ctx context.Context, id string, f *sendFlags, build func(*client.Interrupt) ([]client.Decision, error)) error {
	return e.sendResume(ctx, id, f, func(a *app, it *client.Interrupt) ([]client.Decision, client.Resume, error) {
		ds, err := build(it)
		if err != nil {
			return nil, client.Resume{}, err
		}
		r, err := client.Encode(&it.Payload, ds, client.EncodeOptions{Dialect: client.EditDialect(a.settings.EditDialect), Reviewer: a.settings.Reviewer})
		var na *client.NotAllowedError
		var refused *client.RefusedError
		switch {
		case errors.As(err, &na):
			return nil, client.Resume{}, nothingErr("refused, nothing sent: %v", err)
		case errors.As(err, &refused):
			return nil, client.Resume{}, usageErr("refused, nothing sent: %v", err)
		case err != nil:
			return nil, client.Resume{}, err
		}
		for _, note := range client.Consequences(&it.Payload, ds) {
			fmt.Fprintln(e.stderr, "note:", note)
		}
		return ds, r, nil
	})
}

// sendResume is the one path by which anything is sent: find the interrupt,
// build the resume, send it once, record it.
func (e *env) sendResume(ctx context.Context, id string, f *sendFlags, build func(*app, *client.Interrupt) ([]client.Decision, client.Resume, error)) error {
	a, err := e.open(f.wait)
	if err != nil {
		return err
	}
	it, err := a.find(ctx, id)
	if err != nil {
		return err
	}
	ds, r, err := build(a, &it)
	if err != nil {
		return err
	}
	if f.dryRun {
		if r.Continue {
			fmt.Fprintln(e.stdout, `(continue: a run with no input and no resume value)`)
			return nil
		}
		return writeJSON(e.stdout, json.RawMessage(r.Value), true)
	}
	entry := journal.Entry{
		Reviewer: a.settings.Reviewer, Server: a.backend.Server(), ThreadID: it.ThreadID,
		InterruptID: it.ID, Schema: it.Schema, Decisions: ds, Resume: r.Value,
	}
	out, err := a.backend.Send(ctx, it, r)
	var se interface{ MaybeSentResume() bool }
	switch {
	case errors.Is(err, client.ErrAlreadyHandled):
		entry.Outcome = "already-handled"
		_ = a.journal.MarkHandled(it.ID)
		_ = a.journal.Record(entry)
		return nothingErr("%v; nothing sent", err)
	case errors.Is(err, client.ErrBusy):
		entry.Outcome = "busy"
		_ = a.journal.Record(entry)
		return nothingErr("%v; nothing sent", err)
	case errors.As(err, &se) && se.MaybeSentResume():
		// The resume may have been taken: never show or send it again blindly.
		entry.Outcome, entry.Error = "unknown", err.Error()
		_ = a.journal.MarkHandled(it.ID)
		_ = a.journal.Record(entry)
		return err
	case err != nil:
		entry.Outcome, entry.Error = "error", err.Error()
		_ = a.journal.Record(entry)
		return err
	}
	entry.Outcome, entry.RunID, entry.Error = string(out.Status), out.RunID, out.Error
	if err := a.journal.MarkHandled(it.ID); err != nil {
		fmt.Fprintf(e.stderr, "hitl: sent, but could not record it as handled: %v\n", err)
	}
	if err := a.journal.Record(entry); err != nil {
		fmt.Fprintf(e.stderr, "hitl: sent, but could not write the audit log: %v\n", err)
	}
	if f.asJSON {
		if err := writeJSON(e.stdout, map[string]any{"interrupt_id": it.ID, "thread_id": it.ThreadID, "resume": r.Value, "outcome": out}, true); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(e.stdout, describeOutcome(it, ds, out))
		if out.Reply != "" {
			fmt.Fprintf(e.stdout, "Agent: %s\n", indent(safeBlock(out.Reply), "  ")[2:])
		}
	}
	if out.Status == client.Failed {
		return &exitErr{exitError, fmt.Errorf("the decision was sent, but the run failed: %s", safe(out.Error))}
	}
	return nil
}

func describeOutcome(it client.Interrupt, ds []client.Decision, out client.Outcome) string {
	var kinds []string
	for _, d := range ds {
		kinds = append(kinds, string(d.Type))
	}
	what := strings.Join(kinds, ", ")
	if what == "" {
		what = "resume value"
	}
	head := fmt.Sprintf("Sent %s for %s (thread %s)", what, present.ShortID(it.ID), safe(it.ThreadID))
	switch out.Status {
	case client.Finished:
		return head + ": the run finished."
	case client.PausedAgain:
		var ids []string
		for _, id := range out.Pending {
			ids = append(ids, present.ShortID(id))
		}
		return head + ": the run paused again at " + strings.Join(ids, ", ") + " (see hitl show)."
	case client.Failed:
		return head + ": the run failed."
	case client.Accepted:
		return head + ": the agent has the answer."
	}
	msg := head + ": the run is still going (run " + out.RunID + ")"
	if out.Error != "" {
		msg += "; " + safe(out.Error)
	}
	return msg + "."
}
