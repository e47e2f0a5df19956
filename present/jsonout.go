package present

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/hitl-sh/hitl/inert"
)

// WriteJSON prints v as JSON, with characters a terminal would act on or
// hide escaped (the JSON means the same).
func WriteJSON(w io.Writer, v any, indent bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	out := buf.Bytes()
	if indent {
		out = indentTo(out, maxIndent)
	}
	_, err := w.Write(inert.JSON(out))
	return err
}

// maxIndent is how deep --json output is indented: past it, a value is
// written compact (valid JSON all the same). Indenting every level of a
// value nested 9,000 deep writes 80 million spaces.
const maxIndent = 32

// indentTo indents compact JSON (as json.Indent with two spaces does) up
// to depth levels, and writes what lies deeper compact: output linear in
// the input's size whatever its depth.
func indentTo(b []byte, depth int) []byte {
	out := make([]byte, 0, len(b)+len(b)/4)
	level := 0
	newline := func(n int) {
		out = append(out, '\n')
		for range n {
			out = append(out, ' ', ' ')
		}
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, b[i:min(j+1, len(b))]...)
			i = j
		case c == '{' || c == '[':
			level++
			out = append(out, c)
			if i+1 < len(b) && (b[i+1] == '}' || b[i+1] == ']') {
				out = append(out, b[i+1])
				level--
				i++
			} else if level <= depth {
				newline(level)
			}
		case c == '}' || c == ']':
			level--
			if level < depth {
				newline(level)
			}
			out = append(out, c)
		case c == ',':
			out = append(out, c)
			if level <= depth {
				newline(level)
			}
		case c == ':':
			out = append(out, c)
			if level <= depth {
				out = append(out, ' ')
			}
		default:
			out = append(out, c)
		}
	}
	return out
}
