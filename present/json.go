package present

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hitl-sh/hitl/inert"
)

// JSONKind says what a piece of formatted JSON is, for colouring.
type JSONKind uint8

const (
	// JSONPunct is { } [ ] , and ": " (", " where nesting is too deep to
	// indent).
	JSONPunct JSONKind = iota
	// JSONKey is an object key, quotes included.
	JSONKey
	// JSONString is a string value, quotes included.
	JSONString
	// JSONNumber is a number exactly as it was written.
	JSONNumber
	// JSONLiteral is true, false or null.
	JSONLiteral
	// JSONSpace is layout: a newline and its indentation, or the space
	// before a note.
	JSONSpace
	// JSONNote is a remark for the reader that is not part of the JSON:
	// nesting shown without indentation, or how much of a string was folded.
	JSONNote
)

// DefaultJSONDepth is how many levels are indented when JSONOptions.MaxDepth
// is not set. Deeper containers are written compactly on one line.
const DefaultJSONDepth = 24

// JSONOptions shape FormatJSON's output. The zero value indents by two
// spaces up to DefaultJSONDepth levels and never folds.
type JSONOptions struct {
	// Indent is one level of indentation: spaces and tabs only; anything
	// else (or "") means two spaces.
	Indent string
	// MaxDepth is how many levels are indented (0: DefaultJSONDepth). A
	// container nested deeper is written compactly on one line, announced
	// once by a note. This is what keeps the output linear in the input:
	// no line carries more than MaxDepth indents.
	MaxDepth int
	// MaxString, if positive, is the most bytes of any one string's decoded
	// content that are shown (cut between characters, never inside one).
	// A longer string is closed where it was cut and followed by a note
	// saying how many bytes were not shown: at the end of its line, or
	// right after it where nesting is too deep to indent.
	MaxString int
	// FoldHint ends every fold note in parentheses, e.g. "hitl show ID
	// --raw prints all of it". It is made inert before it is shown.
	FoldHint string
}

// FormatJSON writes raw as readable, inert JSON and hands each piece, in
// order, to emit. Concatenated, the pieces are the text to show.
//
// Key order, duplicate keys and numbers are kept exactly as sent. String
// contents are decoded for reading: every character is printed as itself
// (<, >, &, é, — and 😀 too) except
//   - `"` and `\`, written \" and \\;
//   - newline, tab and carriage return, written \n, \t and \r;
//   - what inert counts as dangerous or invisible (other C0 controls, DEL,
//     C1 controls, bidi overrides and isolates, zero-width and other
//     invisible characters), written \uXXXX (a surrogate pair above U+FFFF);
//   - a lone surrogate escape, kept as sent (\ud800);
//   - each byte that is not UTF-8, written \ufffd. A U+FFFD that was really
//     sent is printed as the character itself, so the escape always means
//     "bytes here were not UTF-8"; and both read back as U+FFFD, which is
//     what encoding/json makes of them.
//
// Leaving out the JSONNote pieces (and the JSONSpace just before each), the
// text is valid JSON meaning the same value as raw, except that folded
// strings are cut short. Nothing is dropped without a note.
//
// The cost is linear in len(raw) whatever its shape, and nothing recurses:
// any depth is safe. Pieces may share memory with one copy of raw.
//
// FormatJSON returns an error for anything that is not exactly one JSON
// value (truncated, trailing garbage, bad escapes...); then emit has not
// been called at all, and the caller shows the raw text through inert.
func FormatJSON(raw []byte, o JSONOptions, emit func(k JSONKind, s string)) error {
	f := formatter{s: string(raw)}
	f.setOptions(o)
	if err := f.run(); err != nil { // first pass: validate only
		return err
	}
	f.emit = emit
	return f.run()
}

// IndentJSON is FormatJSON into one string of plain text, notes included.
func IndentJSON(raw []byte, o JSONOptions) (string, error) {
	var b strings.Builder
	err := FormatJSON(raw, o, func(_ JSONKind, s string) {
		if b.Cap() == 0 {
			// Indented text is usually a little longer than raw; folded
			// text can be much shorter, so then start small and grow.
			n := len(raw) + len(raw)/4 + 64
			if o.MaxString > 0 {
				n = min(n, 64<<10)
			}
			b.Grow(n)
		}
		b.WriteString(s)
	})
	if err != nil {
		return "", err
	}
	return b.String(), nil
}

type formatter struct {
	s         string
	emit      func(JSONKind, string) // nil while validating
	indent    string
	maxDepth  int
	maxString int
	hint      string

	nl      string   // "\n" and indents, sliced for each line
	stack   []bool   // open containers: true for an object
	pending []string // fold notes waiting for the end of their line
	noted   bool     // the depth note was shown
	buf     []byte
}

func (f *formatter) setOptions(o JSONOptions) {
	f.indent = "  "
	if o.Indent != "" && strings.Trim(o.Indent, " \t") == "" {
		f.indent = o.Indent
	}
	f.maxDepth = o.MaxDepth
	if f.maxDepth <= 0 {
		f.maxDepth = DefaultJSONDepth
	}
	f.maxString = max(o.MaxString, 0)
	if o.FoldHint != "" {
		f.hint = " (" + inert.Line(o.FoldHint) + ")"
	}
}

// jsonError is the error FormatJSON returns: what was wrong and where.
func jsonError(off int, what string) error {
	return fmt.Errorf("invalid JSON at byte %d: %s", off, what)
}

var errEnd = errors.New("invalid JSON: unexpected end of input")

// run walks the value once, with an explicit stack. With emit nil it only
// validates; run again with emit set, it cannot fail.
func (f *formatter) run() error {
	s := f.s
	f.stack = f.stack[:0]
	f.pending = f.pending[:0]
	f.noted = false
	i := skipSpace(s, 0)
	for {
		// A value starts at i.
		if i >= len(s) {
			return errEnd
		}
		opened := false
		switch c := s[i]; c {
		case '{', '[':
			end := byte('}')
			if c == '[' {
				end = ']'
			}
			j := skipSpace(s, i+1)
			if j < len(s) && s[j] == end {
				if c == '{' {
					f.out(JSONPunct, "{}")
				} else {
					f.out(JSONPunct, "[]")
				}
				i = j + 1
				break
			}
			f.out(JSONPunct, s[i:i+1])
			f.stack = append(f.stack, c == '{')
			i = j
			opened = true
		case '"':
			end, err := scanString(s, i)
			if err != nil {
				return err
			}
			f.str(JSONString, i, end)
			i = end
		case 't', 'f', 'n':
			lit := "null"
			if c == 't' {
				lit = "true"
			} else if c == 'f' {
				lit = "false"
			}
			if !strings.HasPrefix(s[i:], lit) {
				return jsonError(i, "expected "+lit)
			}
			f.out(JSONLiteral, lit)
			i += len(lit)
		default:
			end, err := scanNumber(s, i)
			if err != nil {
				return err
			}
			f.out(JSONNumber, s[i:end])
			i = end
		}

		if !opened {
			// After a value: a comma, a closing bracket, or the end.
			for {
				i = skipSpace(s, i)
				if len(f.stack) == 0 {
					if i != len(s) {
						return jsonError(i, "more after the value")
					}
					f.flushNotes()
					return nil
				}
				if i >= len(s) {
					return errEnd
				}
				obj := f.stack[len(f.stack)-1]
				if c := s[i]; c == ',' {
					if f.compact() {
						f.out(JSONPunct, ", ")
					} else {
						f.out(JSONPunct, ",")
					}
					i++
					break
				} else if obj && c == '}' || !obj && c == ']' {
					f.stack = f.stack[:len(f.stack)-1]
					if d := len(f.stack); d < f.maxDepth { // it was laid out
						f.newline(d)
					}
					f.out(JSONPunct, s[i:i+1])
					i++
					continue
				}
				if obj {
					return jsonError(i, "expected , or }")
				}
				return jsonError(i, "expected , or ]")
			}
		}

		// An element of the innermost container starts at i: for an object,
		// its key and colon first.
		i = skipSpace(s, i)
		key, keyEnd := 0, 0
		if f.stack[len(f.stack)-1] {
			if i >= len(s) {
				return errEnd
			}
			if s[i] != '"' {
				return jsonError(i, "expected a key")
			}
			end, err := scanString(s, i)
			if err != nil {
				return err
			}
			key, keyEnd = i, end
			i = skipSpace(s, end)
			if i >= len(s) {
				return errEnd
			}
			if s[i] != ':' {
				return jsonError(i, "expected :")
			}
			i = skipSpace(s, i+1)
		}
		d := len(f.stack) // the element's own depth; its container's is d-1
		if d == f.maxDepth && !f.noted && f.emit != nil && nonEmpty(s, i) {
			// The first container too deep to indent: say so on a line
			// of its own just before it.
			f.noted = true
			f.newline(d)
			levels := "levels"
			if f.maxDepth == 1 {
				levels = "level"
			}
			f.emit(JSONNote, fmt.Sprintf("… nested deeper than %d %s: shown without indentation", f.maxDepth, levels))
		}
		if d <= f.maxDepth {
			f.newline(d)
		}
		if f.stack[len(f.stack)-1] {
			f.str(JSONKey, key, keyEnd)
			f.out(JSONPunct, ": ")
		}
	}
}

// nonEmpty says whether s[i:] starts a container with something in it.
func nonEmpty(s string, i int) bool {
	if i >= len(s) || s[i] != '{' && s[i] != '[' {
		return false
	}
	j := skipSpace(s, i+1)
	return j < len(s) && s[j] != '}' && s[j] != ']'
}

func (f *formatter) out(k JSONKind, s string) {
	if f.emit != nil {
		f.emit(k, s)
	}
}

// compact says whether the innermost container is written on one line.
func (f *formatter) compact() bool {
	return len(f.stack) > f.maxDepth
}

// newline starts a line indented d levels. Fold notes for the line that
// ends go first.
func (f *formatter) newline(d int) {
	if f.emit == nil {
		return
	}
	f.flushNotes()
	n := 1 + d*len(f.indent)
	for len(f.nl) < n {
		if f.nl == "" {
			f.nl = "\n" + strings.Repeat(f.indent, 8)
		} else {
			f.nl += f.nl[1:]
		}
	}
	f.emit(JSONSpace, f.nl[:n])
}

func (f *formatter) flushNotes() {
	for _, n := range f.pending {
		f.emit(JSONSpace, " ")
		f.emit(JSONNote, n)
	}
	f.pending = f.pending[:0]
}

// str emits the string s[q:end] (quotes included, already validated),
// decoded for reading and folded past maxString.
func (f *formatter) str(k JSONKind, q, end int) {
	if f.emit == nil {
		return
	}
	t := f.s[q+1 : end-1]
	if (f.maxString == 0 || len(t) <= f.maxString) && readable(t) {
		// Decoded content is never longer than t here, and every escape
		// left is one we would write: show the string as sent.
		f.emit(k, f.s[q:end])
		return
	}
	b, rest := f.rewrite(t)
	f.emit(k, string(b))
	if rest != "" {
		note := "… " + Size(decodedLen(rest)) + " more not shown" + f.hint
		if f.compact() {
			// No end of line in sight: say it here.
			f.emit(JSONSpace, " ")
			f.emit(JSONNote, note)
			f.emit(JSONSpace, " ")
		} else {
			f.pending = append(f.pending, note)
		}
	}
}

// readable says whether t (raw string contents) would be written unchanged:
// printable ASCII, characters inert lets through, and the escapes \" \\ \n
// \t \r. Any other escape is decoded or rewritten.
func readable(t string) bool {
	for i := 0; i < len(t); {
		c := t[i]
		switch {
		case c == '\\':
			switch t[i+1] {
			case '"', '\\', 'n', 't', 'r':
				i += 2
				continue
			}
			return false
		case c < utf8.RuneSelf:
			if c == 0x7f {
				return false
			}
			i++
		default:
			r, n := utf8.DecodeRuneInString(t[i:])
			if r == utf8.RuneError && n == 1 || escaped(r) {
				return false
			}
			i += n
		}
	}
	return true
}

// rewrite decodes t (raw string contents) into f.buf with quotes, escaping
// only what must be. If more than maxString bytes of decoded content would
// be written, it stops between two characters and returns the raw rest.
func (f *formatter) rewrite(t string) ([]byte, string) {
	b := append(f.buf[:0], '"')
	defer func() { f.buf = b[:0] }()
	n := 0 // decoded bytes written
	for i := 0; i < len(t); {
		r, raw, lone := decodeOne(t[i:])
		w := utf8.RuneLen(r) // 3 for U+FFFD, also for a bad byte or lone surrogate
		if f.maxString > 0 && n+w > f.maxString {
			b = append(b, '"')
			return b, t[i:]
		}
		n += w
		switch {
		case lone != 0:
			b = appendU(b, lone)
		case r == utf8.RuneError && raw == 1:
			b = append(b, `\ufffd`...) // a byte that is not UTF-8
		default:
			b = appendRune(b, r)
		}
		i += raw
	}
	b = append(b, '"')
	return b, ""
}

// decodeOne decodes the first character of raw string contents t: an
// escape (a surrogate pair counts as one), or one UTF-8 character, or one
// byte that is not UTF-8 (utf8.RuneError, 1). raw is how many bytes of t it
// took. lone is set to a surrogate escape that has no partner, which
// encoding/json reads as U+FFFD.
func decodeOne(t string) (r rune, raw int, lone rune) {
	c := t[0]
	if c < utf8.RuneSelf && c != '\\' {
		return rune(c), 1, 0
	}
	if c != '\\' {
		r, raw = utf8.DecodeRuneInString(t)
		return r, raw, 0
	}
	switch t[1] {
	case 'b':
		return '\b', 2, 0
	case 'f':
		return '\f', 2, 0
	case 'n':
		return '\n', 2, 0
	case 'r':
		return '\r', 2, 0
	case 't':
		return '\t', 2, 0
	case 'u':
	default: // " \ /
		return rune(t[1]), 2, 0
	}
	r = hex4(t[2:6])
	if !utf16.IsSurrogate(r) {
		return r, 6, 0
	}
	if len(t) >= 12 && t[6] == '\\' && t[7] == 'u' {
		if p := utf16.DecodeRune(r, hex4(t[8:12])); p != utf8.RuneError {
			return p, 12, 0
		}
	}
	return utf8.RuneError, 6, r
}

// decodedLen is how many bytes encoding/json decodes raw string contents t
// to.
func decodedLen(t string) int {
	n := 0
	for len(t) > 0 {
		j := strings.IndexByte(t, '\\')
		if j < 0 {
			j = len(t)
		}
		run := t[:j]
		if utf8.ValidString(run) {
			n += len(run)
		} else {
			for _, r := range run { // a bad byte is one U+FFFD
				n += utf8.RuneLen(r)
			}
		}
		t = t[j:]
		if len(t) > 0 {
			r, raw, _ := decodeOne(t)
			n += utf8.RuneLen(r)
			t = t[raw:]
		}
	}
	return n
}

// escaped says whether r is written as an escape inside a string: JSON
// requires it of C0 controls, and inert's rules of DEL, C1 controls, bidi
// overrides and isolates, and invisible characters. This mirrors inert's
// classification; a test checks every rune against inert.Check.
func escaped(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return true
	case r < 0xad:
		return false
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x00ad, r == 0x034f, r == 0x115f, r == 0x1160, r == 0x17b4, r == 0x17b5, r == 0x180e,
		r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064, r == 0x3164, r == 0xfeff, r == 0xffa0,
		r >= 0xfff9 && r <= 0xfffb, r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return false
}

// appendRune writes decoded character r as string contents.
func appendRune(b []byte, r rune) []byte {
	switch r {
	case '"':
		return append(b, `\"`...)
	case '\\':
		return append(b, `\\`...)
	case '\n':
		return append(b, `\n`...)
	case '\t':
		return append(b, `\t`...)
	case '\r':
		return append(b, `\r`...)
	}
	if !escaped(r) {
		return utf8.AppendRune(b, r)
	}
	if r > 0xffff {
		r1, r2 := utf16.EncodeRune(r)
		return appendU(appendU(b, r1), r2)
	}
	return appendU(b, r)
}

func appendU(b []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

func hex4(h string) rune {
	var r rune
	for i := 0; i < 4; i++ {
		r <<= 4
		switch c := h[i]; {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return -1
		}
	}
	return r
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
		i++
	}
	return i
}

// scanString checks the string starting with the quote at s[i] and returns
// the index just past its closing quote. Bytes that are not UTF-8 are
// accepted, as encoding/json accepts them.
func scanString(s string, i int) (int, error) {
	for j := i + 1; j < len(s); {
		j = skipPlain(s, j)
		if j >= len(s) {
			break
		}
		switch c := s[j]; {
		case c == '"':
			return j + 1, nil
		case c == '\\':
			if j+1 >= len(s) {
				return 0, errEnd
			}
			switch s[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(s) {
					return 0, errEnd
				}
				if hex4(s[j+2:j+6]) < 0 {
					return 0, jsonError(j, `bad \u escape`)
				}
				j += 6
			default:
				return 0, jsonError(j, "bad escape")
			}
		case c < 0x20:
			return 0, jsonError(j, "control character in string")
		default:
			j++
		}
	}
	return 0, errEnd
}

// skipPlain returns the index of the first byte from j on that is a quote,
// a backslash or a control character (or len(s)), eight bytes at a time.
func skipPlain(s string, j int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; j+8 <= len(s); j += 8 {
		x := uint64(s[j]) | uint64(s[j+1])<<8 | uint64(s[j+2])<<16 | uint64(s[j+3])<<24 |
			uint64(s[j+4])<<32 | uint64(s[j+5])<<40 | uint64(s[j+6])<<48 | uint64(s[j+7])<<56
		q := x ^ ones*'"'
		b := x ^ ones*'\\'
		// A byte below 0x20, or equal to '"' or '\\', sets its high bit here.
		if ((x-ones*0x20)&^x|(q-ones)&^q|(b-ones)&^b)&highs != 0 {
			break
		}
	}
	for j < len(s) && s[j] >= 0x20 && s[j] != '"' && s[j] != '\\' {
		j++
	}
	return j
}

// scanNumber checks the number starting at s[i] and returns where it ends.
func scanNumber(s string, i int) (int, error) {
	start := i
	digits := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		digits()
	case i >= len(s) && i > start:
		return 0, errEnd
	default:
		return 0, jsonError(i, "expected a value")
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return 0, jsonError(i, "expected a digit")
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return 0, jsonError(i, "expected a digit")
		}
	}
	return i, nil
}

// Size says n bytes for a person: 512 B, 64.0 KB, 9.9 MB (1 KB = 1024 B).
func Size(n int) string {
	switch {
	case n < 1<<10:
		return strconv.Itoa(n) + " B"
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
}
