// Package inert makes text from a backend safe to print on a terminal: control
// characters and escape sequences become visible escapes, spelled as JSON
// spells them (`\u001b[2J`, `\r`), so that a byte reads the same in a row of
// text and in the JSON beside it; bidirectional overrides and invisible
// characters become visible markers (`<U+202E>`); a byte that is not UTF-8
// is `\xNN`. The reviewer sees exactly the bytes that would be approved and
// nothing can move the cursor or recolour the screen.
package inert

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Warning says what kind of hidden content a string carried.
type Warning uint8

const (
	// Control: escape sequences or other control characters.
	Control Warning = 1 << iota
	// Bidi: bidirectional overrides or isolates, which reorder what is shown.
	Bidi
	// Invisible: zero-width or other invisible characters.
	Invisible
	// BadUTF8: bytes that are not UTF-8.
	BadUTF8
)

// String names the warnings for a badge.
func (w Warning) String() string {
	var parts []string
	for _, x := range []struct {
		w    Warning
		name string
	}{{Control, "control characters"}, {Bidi, "bidi override"}, {Invisible, "invisible characters"}, {BadUTF8, "invalid UTF-8"}} {
		if w&x.w != 0 {
			parts = append(parts, x.name)
		}
	}
	return strings.Join(parts, ", ")
}

// Text returns s with every unsafe character made visible. keepNewlines
// keeps \n (and \t) as they are, for multi-line text; otherwise they too
// are escaped, for one-line fields.
func Text(s string, keepNewlines bool) (string, Warning) {
	var w Warning
	if isPlain(s, keepNewlines) {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			w |= BadUTF8
			i++
			continue
		}
		i += size
		switch kind(r) {
		case plain:
			b.WriteRune(r)
		case layout:
			if keepNewlines {
				b.WriteRune(r)
			} else if r == '\n' {
				b.WriteString(`\n`)
			} else {
				b.WriteString(`\t`)
			}
		case control:
			// Spelled as JSON spells it (present.FormatJSON, hitl show's
			// and the detail's JSON), so that one byte reads the same in
			// a list row and in the JSON beside it: \u001b, and \r.
			w |= Control
			if r == '\r' {
				b.WriteString(`\r`)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		case bidi:
			w |= Bidi
			fmt.Fprintf(&b, "<U+%04X>", r)
		case invisible:
			w |= Invisible
			fmt.Fprintf(&b, "<U+%04X>", r)
		}
	}
	return b.String(), w
}

// Line is Text for one-line fields: newlines and tabs escaped too.
func Line(s string) string {
	out, _ := Text(s, false)
	return out
}

// Block is Text for multi-line text: lines and tabs kept.
func Block(s string) string {
	out, _ := Text(s, true)
	return out
}

// Check reports what Text would warn about, without building a string.
func Check(s string) Warning {
	if isPlain(s, true) {
		return 0
	}
	_, w := Text(s, true)
	return w
}

type class int

const (
	plain class = iota
	layout
	control
	bidi
	invisible
)

func kind(r rune) class {
	switch {
	case r == '\n' || r == '\t':
		return layout
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return control
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return bidi
	case r == 0x00ad, r == 0x034f, r == 0x115f, r == 0x1160, r == 0x17b4, r == 0x17b5, r == 0x180e,
		r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064, r == 0x3164, r == 0xfeff, r == 0xffa0,
		r >= 0xfff9 && r <= 0xfffb, r >= 0xe0000 && r <= 0xe007f:
		return invisible
	}
	return plain
}

func isPlain(s string, keepNewlines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return allPlainRunes(s[i:], keepNewlines)
		}
		if c < 0x20 || c == 0x7f {
			if keepNewlines && (c == '\n' || c == '\t') {
				continue
			}
			return false
		}
	}
	return true
}

func allPlainRunes(s string, keepNewlines bool) bool {
	for _, r := range s {
		switch kind(r) {
		case plain:
		case layout:
			if !keepNewlines {
				return false
			}
		default:
			return false
		}
	}
	return utf8.ValidString(s)
}

// JSON escapes, inside a valid JSON text, the characters that encoding/json
// leaves raw but a terminal would act on or hide (DEL, C1 controls, bidi and
// invisible characters) as \uXXXX: the JSON means the same and prints inertly.
// A carriage return between tokens (white space to JSON, a cursor move to a
// terminal) becomes a space. Given text that is not JSON (a value hitl
// could not read), it escapes the same characters and control characters
// too, so that nothing of it acts on the terminal.
func JSON(b []byte) []byte {
	s := string(b)
	if isPlain(s, true) {
		return b
	}
	var out strings.Builder
	out.Grow(len(b) + 16)
	inString, escaped := false, false
	for _, r := range s {
		switch {
		case escaped:
			escaped = false
		case inString && r == '\\':
			escaped = true
		case r == '"':
			inString = !inString
		}
		switch kind(r) {
		case control, bidi, invisible:
			switch {
			case !inString && r == '\r':
				out.WriteByte(' ')
			case r > 0xffff:
				r1, r2 := surrogates(r)
				fmt.Fprintf(&out, `\u%04x\u%04x`, r1, r2)
			default:
				fmt.Fprintf(&out, `\u%04x`, r)
			}
		default:
			out.WriteRune(r)
		}
	}
	return []byte(out.String())
}

func surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
