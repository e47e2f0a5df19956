package present

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/hitl-sh/hitl/client"
)

// FieldKind says in words what a form field takes: "one of: react, vue",
// "number from 0 to 100", "text, at most 2000 characters", "true or false".
// It is not yet inert.
func FieldKind(f client.Field) string {
	var s string
	switch f.Kind {
	case client.FieldChoice:
		s = oneOf(f.Choices)
	case client.FieldBoolean:
		s = "true or false"
	case client.FieldNumber, client.FieldInteger:
		s = numberKind(f)
	case client.FieldList:
		item := FieldKind(client.Field{Kind: f.Item, Choices: f.Choices})
		if f.Item == client.FieldChoice {
			item = "values from: " + choiceList(f.Choices)
		}
		s = "list of " + item + sizes(f.MinItems, f.MaxItems, "item")
	default:
		s = "text" + sizes(f.MinLength, f.MaxLength, "character")
		if f.Format != "" {
			s += ", format " + f.Format
		}
		if f.Pattern != "" {
			s += ", matching " + f.Pattern
		}
	}
	if f.Nullable {
		s += ", or null"
	}
	if f.Default != nil {
		s += ", default " + client.ChoiceText(f.Default)
	}
	return s
}

func oneOf(cs []json.RawMessage) string {
	if len(cs) == 1 {
		return "always " + client.ChoiceText(cs[0])
	}
	return "one of: " + choiceList(cs)
}

func choiceList(cs []json.RawMessage) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = client.ChoiceText(c)
	}
	return strings.Join(names, ", ")
}

func numberKind(f client.Field) string {
	s := "number"
	if f.Kind == client.FieldInteger {
		s = "whole number"
	}
	lo, hi := f.Min, f.Max
	switch {
	case lo != nil && hi != nil && !lo.Exclusive && !hi.Exclusive:
		s += fmt.Sprintf(" from %s to %s", numText(lo.Value), numText(hi.Value))
	default:
		if lo != nil {
			if lo.Exclusive {
				s += " more than " + numText(lo.Value)
			} else {
				s += " at least " + numText(lo.Value)
			}
		}
		if hi != nil {
			if lo != nil {
				s += ","
			}
			if hi.Exclusive {
				s += " less than " + numText(hi.Value)
			} else {
				s += " at most " + numText(hi.Value)
			}
		}
	}
	if f.MultipleOf != "" {
		s += ", in steps of " + numText(f.MultipleOf)
	}
	return s
}

// numText is a schema's number as a reviewer reads it: a whole one without
// the ".0" an A2A agent's protobuf Struct gives every number, any other as
// written.
func numText(n json.Number) string {
	if r, ok := new(big.Rat).SetString(string(n)); ok && r.IsInt() {
		return r.Num().String()
	}
	return string(n)
}

func sizes(lo, hi *int, unit string) string {
	plural := func(n int) string {
		if n == 1 {
			return unit
		}
		return unit + "s"
	}
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		return fmt.Sprintf(", exactly %d %s", *hi, plural(*hi))
	case lo != nil && hi != nil:
		return fmt.Sprintf(", %d to %d %s", *lo, *hi, plural(*hi))
	case hi != nil:
		return fmt.Sprintf(", at most %d %s", *hi, plural(*hi))
	case lo != nil && *lo > 0:
		return fmt.Sprintf(", at least %d %s", *lo, plural(*lo))
	}
	return ""
}

// FormText lists a form's fields for reading, as `hitl show` prints them:
// a line per field (name, * when required, what it takes), its description
// under it, nested objects as headings. It is not yet inert.
func FormText(f *client.Form) string {
	width := 0
	for _, x := range f.Fields {
		width = max(width, len(x.Name)+2)
	}
	var b strings.Builder
	group := ""
	for _, x := range f.Fields {
		if x.Group != group {
			group = x.Group
			if g := formGroup(f, group); g != nil {
				head := g.Name
				if g.Required {
					head += " *"
				}
				head += "  (an object)"
				if g.Title != "" {
					head += "  " + g.Title
				}
				b.WriteString(head + "\n")
				if g.Description != "" {
					b.WriteString(Indent(g.Description, "    ") + "\n")
				}
			}
		}
		name := x.Name
		if x.Required {
			name += " *"
		}
		b.WriteString(fmt.Sprintf("%-*s %s\n", width, name, FieldKind(x)))
		about := x.Description
		if x.Title != "" {
			about = strings.TrimSpace(x.Title + ". " + about)
		}
		if about != "" {
			b.WriteString(Indent(about, strings.Repeat(" ", width+1)) + "\n")
		}
	}
	b.WriteString("(* required)")
	return b.String()
}

func formGroup(f *client.Form, name string) *client.Group {
	for i := range f.Groups {
		if f.Groups[i].Name == name {
			return &f.Groups[i]
		}
	}
	return nil
}
