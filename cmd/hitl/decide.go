package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
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

func respondCmd(e *env) *cobra.Command {
	f := &sendFlags{}
	var fieldFlags []string
	var value string
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
		RunE: func(cmd *cobra.Command, args []string) error {
			fields, err := readFields(e.stdin, fieldFlags)
			if err != nil {
				return err
			}
			var v json.RawMessage
			if value != "" {
				if !json.Valid([]byte(value)) {
					return usageErr("--value must be valid JSON (quote a string as '\"text\"')")
				}
				v = json.RawMessage(value)
			}
			if v != nil && fields != nil {
				return usageErr("give the answer as --field flags or as --value, not both")
			}
			return e.decide(cmd.Context(), args, f, func(it *client.Interrupt) (decide.Input, error) {
				if err := formWantsFields(it, f.message, fields, v, e.again()); err != nil {
					return decide.Input{}, err
				}
				return decide.Input{Type: client.Respond, Text: f.message, Answers: f.answers, Fields: fields, Value: v}, nil
			})
		},
	}
	cmd.Flags().StringVarP(&f.message, "message", "m", "", "the reply / feedback text")
	cmd.Flags().StringArrayVar(&f.answers, "answer", nil, "answer to the next question, in order (repeatable)")
	cmd.Flags().StringArrayVar(&fieldFlags, "field", nil, "NAME=VALUE for a field of the interrupt's answer schema (repeatable; NAME=@FILE reads a file)")
	cmd.Flags().StringVar(&value, "value", "", "the whole answer as JSON, checked against the answer schema")
	f.register(e, cmd, true)
	return cmd
}

// formWantsFields refuses -m text, or no answer at all, as the answer to an
// interrupt whose schema asks for an object, and says how to give it: text
// cannot match.
func formWantsFields(it *client.Interrupt, text string, fields map[string][]string, v json.RawMessage, again string) error {
	if it.Schema != client.SchemaForm || fields != nil || v != nil {
		return nil
	}
	form, err := client.FormOf(it.ResponseSchema)
	if err != nil || form.Root {
		return nil
	}
	names := make([]string, len(form.Fields))
	for i, fl := range form.Fields {
		names[i] = safe(fl.Name)
	}
	notText := ""
	if text != "" {
		notText = ", not text"
	}
	return usageErr("%s asks for a typed answer with the fields %s%s: give --field NAME=VALUE for each (or the whole answer as --value JSON); %s show %s describes them",
		safe(present.ShortID(it.ID)), strings.Join(names, ", "), notText, again, safe(present.ShortID(it.ID)))
}

// readFields reads --field NAME=VALUE flags (NAME=@FILE: the file's text,
// @- standard input); a name given again adds an item (lists).
func readFields(stdin io.Reader, flags []string) (map[string][]string, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	out := map[string][]string{}
	for _, fl := range flags {
		name, text, ok := strings.Cut(fl, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, usageErr("--field %q: give NAME=VALUE (hitl show ID lists the fields)", fl)
		}
		if file, isFile := strings.CutPrefix(text, "@"); isFile && file != "" {
			b, err := readArg(stdin, file)
			if err != nil {
				return nil, err
			}
			text = string(b)
		}
		name = strings.TrimSpace(name)
		out[name] = append(out[name], text)
	}
	return out, nil
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

func editCmd(e *env) *cobra.Command {
	f := &sendFlags{}
	var argsFile, name string
	var fieldFlags, setFlags []string
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
		RunE: func(cmd *cobra.Command, args []string) error {
			fields, err := readFields(e.stdin, fieldFlags)
			if err != nil {
				return err
			}
			sets, err := review.ParseSets(setFlags)
			if err != nil {
				return err
			}
			if argsFile == "" && fields == nil && sets == nil {
				return usageErr("edit needs --set KEY=VALUE (one argument changed, the others kept), --args FILE (or - for standard input: the whole new arguments object), or --field NAME=VALUE")
			}
			if fields != nil && sets != nil {
				return usageErr("give --field (typed by the args_schema) or --set, not both")
			}
			var raw []byte
			if argsFile != "" {
				if raw, err = readArg(e.stdin, argsFile); err != nil {
					if inlineJSON(argsFile) {
						return usageErr("--args takes a file, not JSON: give the JSON on standard input with --args - (echo '{…}' | %s edit %s --args -), or change one argument with --set KEY=VALUE", e.again(), idWord(args))
					}
					return err
				}
			}
			return e.decide(cmd.Context(), args, f, func(it *client.Interrupt) (decide.Input, error) {
				if len(it.Actions) > 1 && f.action == 0 {
					return decide.Input{}, whichAction(it, client.Edit, e.again())
				}
				text := string(raw)
				sets, fields := sets, fields
				if slot := max(f.action-1, 0); fields != nil && slot < len(it.Actions) && len(it.Actions[slot].ArgsSchema) == 0 {
					// No args_schema to type the fields by: each one is a
					// --set (the test agent's own tools have none).
					for _, k := range slices.Sorted(maps.Keys(fields)) {
						v := fields[k]
						if len(v) != 1 {
							return decide.Input{}, usageErr("--field %s given %d times: this action has no args_schema to say it is a list; give --set %s='[…]'", k, len(v), k)
						}
						more, err := review.ParseSets([]string{k + "=" + v[0]})
						if err != nil {
							return decide.Input{}, err
						}
						sets = append(sets, more...)
					}
					fields = nil
				}
				if sets != nil {
					slot := max(f.action-1, 0)
					if slot >= len(it.Actions) {
						return decide.Input{}, usageErr("--set changes a tool call's arguments; %s has no action %d", present.ShortID(it.ID), slot+1)
					}
					base := it.Actions[slot].Args
					if raw != nil {
						base = raw
					}
					merged, err := review.SetKeys(base, sets)
					if err != nil {
						return decide.Input{}, err
					}
					text = string(merged)
				}
				return decide.Input{Type: client.Edit, Args: text, Name: name, Fields: fields}, nil
			})
		},
	}
	cmd.Flags().StringVar(&argsFile, "args", "", "file with the whole new arguments as JSON, or - for standard input (replaces them: keys left out are dropped)")
	cmd.Flags().StringArrayVar(&setFlags, "set", nil, "KEY=VALUE: change one argument, keep the others (repeatable; VALUE as JSON when it is JSON, else text)")
	cmd.Flags().StringArrayVar(&fieldFlags, "field", nil, "NAME=VALUE for an argument of the action's args_schema (repeatable)")
	cmd.Flags().StringVar(&name, "name", "", "also rename the tool call")
	f.register(e, cmd, true)
	return cmd
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

// wireInput is one decision as `decide --decisions` reads it.
type wireInput struct {
	Type    client.DecisionType `json:"type"`
	Args    json.RawMessage     `json:"args"`
	Name    string              `json:"name"`
	Message string              `json:"message"`
	Answers []string            `json:"answers"`
	Value   json.RawMessage     `json:"value"`
}

func (w wireInput) input() decide.Input {
	return decide.Input{Type: w.Type, Args: string(w.Args), Name: w.Name, Text: w.Message, Answers: w.Answers, Value: w.Value}
}

func decideCmd(e *env) *cobra.Command {
	f := &sendFlags{}
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if file == "" {
				return usageErr("decide needs --decisions FILE (or - for standard input)")
			}
			raw, err := readArg(e.stdin, file)
			if err != nil {
				if inlineJSON(file) {
					return usageErr("--decisions takes a file, not JSON: give the JSON on standard input with --decisions - (echo '[…]' | %s decide %s --decisions -)", e.again(), idWord(args))
				}
				return err
			}
			var list []wireInput
			var byID map[string][]wireInput
			if json.Unmarshal(raw, &list) != nil {
				if err := json.Unmarshal(raw, &byID); err != nil {
					return usageErr("--decisions: not a JSON array of decisions, nor an object from interrupt id to such an array: %v", err)
				}
			}
			return e.send(cmd.Context(), args, f, func(it *client.Interrupt) ([]decide.Input, error) {
				ws := list
				if byID != nil {
					ws = nil
					for k, v := range byID {
						if len(k) >= 4 && strings.HasPrefix(it.ID, strings.ToLower(k)) {
							ws = v
						}
					}
					if ws == nil {
						return nil, usageErr("--decisions has no entry for interrupt %s", it.ID)
					}
				}
				in := make([]decide.Input, len(ws))
				for i, w := range ws {
					in[i] = w.input()
				}
				return in, nil
			})
		},
	}
	cmd.Flags().StringVar(&file, "decisions", "", "file with the decisions as JSON, or - for standard input")
	f.register(e, cmd, false)
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
			return e.sendDrafts(cmd.Context(), args, f, func(it client.Interrupt) (decide.Draft, error) {
				return decide.Draft{Interrupt: it, Resume: &client.Resume{Value: json.RawMessage(value)}}, nil
			})
		},
	}
	cmd.Flags().StringVar(&value, "value", "", "the resume value, as JSON")
	f.register(e, cmd, false)
	return cmd
}

// readArg reads a file, or standard input for "-", refusing more than
// maxInput bytes rather than cutting it.
// inlineJSON: a file name that is JSON typed in its place (no such file
// is there to read).
func inlineJSON(name string) bool {
	t := strings.TrimSpace(name)
	return strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")
}

// idWord is the one id given, as a shell word, for a command to copy; "ID"
// otherwise.
func idWord(args []string) string {
	if len(args) != 1 {
		return "ID"
	}
	return shellWord(safe(args[0]))
}

func readArg(stdin io.Reader, name string) ([]byte, error) {
	var r io.Reader
	what := name
	if name == "-" {
		r, what = stdin, "standard input"
	} else {
		f, err := os.Open(name)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // "no such file or directory", without Go's "open NAME:"
			}
			return nil, &exitErr{exitUsage, fmt.Errorf("cannot read %s: %w", safe(name), err)}
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, &exitErr{exitUsage, fmt.Errorf("cannot read %s: %w", what, err)}
	}
	if len(b) > maxInput {
		return nil, usageErr("%s is larger than %d MiB: hitl reads at most that much", what, maxInput>>20)
	}
	return b, nil
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
