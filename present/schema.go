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

// SchemaText summarises a JSON Schema for reading, as hitl show prints it
// (client.OutlineOf reads it, as the TUI's form does: FormOf): a line per
// field (name, * when required, what it takes: FieldKind), its title and
// description under it, a nested object as a heading with its fields
// indented under it, alternatives (anyOf, oneOf) numbered, each read the
// same way; a part not read says why. It is not yet inert.
func SchemaText(schema json.RawMessage) string {
	return outlineText(client.OutlineOf(schema))
}

func outlineText(o *client.Outline) string {
	switch {
	case o.Form != nil:
		return FormText(o.Form)
	case len(o.Alternatives) > 0:
		var b strings.Builder
		how := "anyOf"
		if o.OneOf {
			how = "oneOf"
		}
		fmt.Fprintf(&b, "one of %d shapes (%s):", len(o.Alternatives), how)
		for i, a := range o.Alternatives {
			num := fmt.Sprintf("%d. ", i+1)
			text := Indent(outlineText(a), strings.Repeat(" ", len(num)))
			b.WriteString("\n" + num + text[len(num):])
		}
		return b.String()
	}
	return "not summarised: " + o.Unread
}

// FormText lists a form's fields for reading (SchemaText): a line per
// field (its name, * when required, what it takes), its description
// under it, a nested object as a heading with its fields indented under
// it. It is not yet inert.
func FormText(f *client.Form) string {
	label := func(x client.Field) string {
		if x.Required {
			return leafName(x) + " *"
		}
		return leafName(x)
	}
	width := map[string]int{} // the names' column, per object
	for _, x := range f.Fields {
		width[x.Group] = max(width[x.Group], len(label(x)))
	}
	var b strings.Builder
	headed := map[string]bool{}
	for _, x := range f.Fields {
		// The headings of the objects x is in, outermost first.
		for d := 1; d < len(x.Path) && x.Group != ""; d++ {
			name := strings.Join(x.Path[:d], ".")
			g := formGroup(f, name)
			if g == nil || headed[name] {
				continue
			}
			headed[name] = true
			pad := strings.Repeat("  ", d-1)
			head := x.Path[d-1]
			if g.Required {
				head += " *"
			}
			head += "  (an object)"
			if g.Title != "" {
				head += "  " + g.Title
			}
			b.WriteString(pad + head + "\n")
			if g.Description != "" {
				b.WriteString(Indent(g.Description, pad+"    ") + "\n")
			}
		}
		pad := ""
		if x.Group != "" {
			pad = strings.Repeat("  ", len(x.Path)-1)
		}
		kind := "not summarised: " + x.Unread
		if x.Unread == "" {
			kind = FieldKind(x)
		}
		b.WriteString(fmt.Sprintf("%s%-*s  %s\n", pad, width[x.Group], label(x), kind))
		about := x.Description
		if x.Title != "" {
			about = strings.TrimSpace(x.Title + ". " + about)
		}
		if about != "" {
			b.WriteString(Indent(about, pad+strings.Repeat(" ", width[x.Group]+2)) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// leafName is a field's name under its object's heading: its own, where
// Name joins its path ("owner.email").
func leafName(x client.Field) string {
	if x.Group != "" && len(x.Path) > 0 {
		return x.Path[len(x.Path)-1]
	}
	return x.Name
}

func formGroup(f *client.Form, name string) *client.Group {
	for i := range f.Groups {
		if f.Groups[i].Name == name {
			return &f.Groups[i]
		}
	}
	return nil
}
