package decisions

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/review"
)

// RespondOptions are hitl respond's: -m and --answer (in Options), or an
// answer schema's fields, or the whole answer as JSON.
type RespondOptions struct {
	*Options
	Fields []string // --field NAME=VALUE (NAME=@FILE reads a file)
	Value  string   // --value JSON
}

// Respond sends text: a reply, feedback with answers to questions, or a
// form's fields.
func Respond(ctx context.Context, o *RespondOptions) error {
	fields, err := readFields(o.Options, o.Fields)
	if err != nil {
		return err
	}
	var v json.RawMessage
	if o.Value != "" {
		if !json.Valid([]byte(o.Value)) {
			return review.Usagef("--value must be valid JSON (quote a string as '\"text\"')")
		}
		v = json.RawMessage(o.Value)
	}
	if v != nil && fields != nil {
		return review.Usagef("give the answer as --field flags or as --value, not both")
	}
	return Decide(ctx, o.Options, func(it *client.Interrupt) (decide.Input, error) {
		if err := formWantsFields(it, o.Message, fields, v, o.Again); err != nil {
			return decide.Input{}, err
		}
		return decide.Input{Type: client.Respond, Text: o.Message, Answers: o.Answers, Fields: fields, Value: v}, nil
	})
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
	return review.Usagef("%s asks for a typed answer with the fields %s%s: give --field NAME=VALUE for each (or the whole answer as --value JSON); %s show %s describes them",
		safe(present.ShortID(it.ID)), strings.Join(names, ", "), notText, again, safe(present.ShortID(it.ID)))
}

// EditOptions are hitl edit's: the new arguments, three ways.
type EditOptions struct {
	*Options
	ArgsFile string   // --args FILE|-: the whole new arguments
	Sets     []string // --set KEY=VALUE: one argument changed, the others kept
	Fields   []string // --field NAME=VALUE: typed by the action's args_schema
	Name     string   // --name: the tool call renamed
}

// Edit approves an action with edited arguments.
func Edit(ctx context.Context, o *EditOptions) error {
	fields, err := readFields(o.Options, o.Fields)
	if err != nil {
		return err
	}
	sets, err := review.ParseSets(o.Sets)
	if err != nil {
		return err
	}
	if o.ArgsFile == "" && fields == nil && sets == nil {
		return review.Usagef("edit needs --set KEY=VALUE (one argument changed, the others kept), --args FILE (or - for standard input: the whole new arguments object), or --field NAME=VALUE")
	}
	if fields != nil && sets != nil {
		return review.Usagef("give --field (typed by the args_schema) or --set, not both")
	}
	var raw []byte
	if o.ArgsFile != "" {
		if raw, err = readArg(o.Options, o.ArgsFile); err != nil {
			if inlineJSON(o.ArgsFile) {
				return review.Usagef("--args takes a file, not JSON: give the JSON on standard input with --args - (echo '{…}' | %s edit %s --args -), or change one argument with --set KEY=VALUE", o.Again, idWord(o.IDs))
			}
			return err
		}
	}
	return Decide(ctx, o.Options, func(it *client.Interrupt) (decide.Input, error) {
		if len(it.Actions) > 1 && o.Action == 0 {
			return decide.Input{}, whichAction(it, client.Edit, o.Again)
		}
		text := string(raw)
		sets, fields := sets, fields
		if slot := max(o.Action-1, 0); fields != nil && slot < len(it.Actions) && len(it.Actions[slot].ArgsSchema) == 0 {
			// No args_schema to type the fields by: each one is a
			// --set (the test agent's own tools have none).
			for _, k := range slices.Sorted(maps.Keys(fields)) {
				v := fields[k]
				if len(v) != 1 {
					return decide.Input{}, review.Usagef("--field %s given %d times: this action has no args_schema to say it is a list; give --set %s='[…]'", k, len(v), k)
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
			slot := max(o.Action-1, 0)
			if slot >= len(it.Actions) {
				return decide.Input{}, review.Usagef("--set changes a tool call's arguments; %s has no action %d", present.ShortID(it.ID), slot+1)
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
		return decide.Input{Type: client.Edit, Args: text, Name: o.Name, Fields: fields}, nil
	})
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

// FromFile is hitl decide: one decision per action, read as JSON from
// file (- for standard input): an array, or for several interrupts an
// object from interrupt id (or 4+ characters of it) to such an array.
func FromFile(ctx context.Context, o *Options, file string) error {
	if file == "" {
		return review.Usagef("decide needs --decisions FILE (or - for standard input)")
	}
	raw, err := readArg(o, file)
	if err != nil {
		if inlineJSON(file) {
			return review.Usagef("--decisions takes a file, not JSON: give the JSON on standard input with --decisions - (echo '[…]' | %s decide %s --decisions -)", o.Again, idWord(o.IDs))
		}
		return err
	}
	var list []wireInput
	var byID map[string][]wireInput
	if json.Unmarshal(raw, &list) != nil {
		if err := json.Unmarshal(raw, &byID); err != nil {
			return review.Usagef("--decisions: not a JSON array of decisions, nor an object from interrupt id to such an array: %v", err)
		}
	}
	return Send(ctx, o, func(it *client.Interrupt) ([]decide.Input, error) {
		ws := list
		if byID != nil {
			ws = nil
			for k, v := range byID {
				if len(k) >= 4 && strings.HasPrefix(it.ID, strings.ToLower(k)) {
					ws = v
				}
			}
			if ws == nil {
				return nil, review.Usagef("--decisions has no entry for interrupt %s", it.ID)
			}
		}
		in := make([]decide.Input, len(ws))
		for i, w := range ws {
			in[i] = w.input()
		}
		return in, nil
	})
}

// Resume sends exactly this resume value (hitl resume: no checks on its
// shape).
func Resume(ctx context.Context, o *Options, value string) error {
	if !json.Valid([]byte(value)) {
		return review.Usagef("--value must be valid JSON (quote a string as '\"text\"')")
	}
	return SendDrafts(ctx, o, func(it client.Interrupt) (decide.Draft, error) {
		return decide.Draft{Interrupt: it, Resume: &client.Resume{Value: json.RawMessage(value)}}, nil
	})
}
