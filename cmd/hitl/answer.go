package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/review"
)

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
