package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits past which an interrupt's value is not shown. Such a value is one
// item of its own (Payload.Problem says what is wrong with it, Schema is
// SchemaUnreadable) and every other interrupt is listed as usual: a server
// that sends one poisoned value does not hide the rest.
const (
	// MaxDepth is how deeply a value may nest. encoding/json refuses
	// anything past 10,000 levels, and hitl wraps a value in a few levels
	// of its own (list --json, the audit log, a resume): 9,000 leaves room.
	MaxDepth = 9_000
	// MaxValueSize is how large a value may be, in bytes: the screen folds
	// long strings, but parsing and keeping a value costs a few times its
	// size (an answer as a whole may be up to 64 MiB).
	MaxValueSize = 16 << 20
)

// SchemaUnreadable is an interrupt whose value hitl cannot show: too deep,
// too large, not JSON, or an entry the server sent that is not an
// interrupt at all. It allows no decision; `hitl show ID --raw` prints its
// bytes and `hitl resume ID --value JSON` answers it blind.
const SchemaUnreadable Schema = "unreadable"

// Unreadable is the payload of an interrupt that cannot be shown, saying
// why (see ValueProblem).
func Unreadable(problem string) Payload {
	return Normalized(Payload{Schema: SchemaUnreadable, Problem: problem,
		Title:       "Not shown: " + problem,
		Description: "hitl cannot show this interrupt, and sends no decision for it from here. `hitl show ID --raw` prints the bytes the server sent; `hitl resume ID --value JSON` sends a value of your own."})
}

// ValueProblem says why a value cannot be shown, as words that follow
// "payload" ("nested 100,000 levels deep, …"), or "" when it can: larger
// than MaxValueSize, nested deeper than MaxDepth, or not JSON. It reads
// the value once, in time linear in its size whatever its depth.
func ValueProblem(b []byte) string {
	if p := limitProblem(b); p != "" {
		return p
	}
	return validity(b)
}

// limitProblem is ValueProblem but for what only a full parse finds.
func limitProblem(b []byte) string {
	if len(b) > MaxValueSize {
		return fmt.Sprintf("of %s, larger than the %s hitl shows", size(len(b)), size(MaxValueSize))
	}
	d, err := depth(b)
	switch {
	case d > MaxDepth:
		return fmt.Sprintf("nested %s levels deep, deeper than the %s hitl shows", thousands(d), thousands(MaxDepth))
	case err != nil:
		return "that is not JSON: " + err.Error()
	}
	return ""
}

// validity says why b (within the limits) is not JSON, or "".
func validity(b []byte) string {
	if json.Valid(b) {
		return ""
	}
	var v any
	err := json.Unmarshal(b, &v)
	return "that is not JSON: " + strings.TrimPrefix(fmt.Sprint(err), "json: ")
}

// WithValue gives it the value's bytes: as Raw, or, when its payload could
// not be read (Problem), as Bytes, with Raw null (Raw must be JSON).
func (it *Interrupt) WithValue(raw []byte) {
	if it.Problem != "" {
		it.Bytes, it.Raw = raw, json.RawMessage("null")
		return
	}
	if raw == nil {
		raw = json.RawMessage("null")
	}
	it.Raw = raw
}

func size(n int) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// The functions below read the structure of JSON without decoding it and
// without a limit on its depth (a counter, not recursion), so that an
// answer can be taken apart one item at a time: encoding/json refuses a
// whole document because of one item nested too deep.

var errNotJSON = errors.New("not JSON")

// Elements returns the bytes of each element of the JSON array b, in
// order. An element is only delimited, not checked: decode or check it on
// its own.
func Elements(b []byte) ([]json.RawMessage, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, fmt.Errorf("expected a JSON array, got %s", what(b, i))
	}
	var out []json.RawMessage
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return []json.RawMessage{}, trailing(b, i+1)
	}
	for {
		end, err := skipValue(b, i)
		if err != nil {
			return nil, err
		}
		out = append(out, b[i:end])
		i = skipSpace(b, end)
		if i >= len(b) {
			return nil, fmt.Errorf("the array is not closed")
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return out, trailing(b, i+1)
		default:
			return nil, fmt.Errorf("expected , or ] after an array element, got %s", what(b, i))
		}
	}
}

// Member is one member of a JSON object.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Members returns the members of the JSON object b, in order. Values are
// only delimited, not checked.
func Members(b []byte) ([]Member, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, fmt.Errorf("expected a JSON object, got %s", what(b, i))
	}
	var out []Member
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return out, trailing(b, i+1)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, fmt.Errorf("expected a member name, got %s", what(b, i))
		}
		end, err := skipValue(b, i)
		if err != nil {
			return nil, err
		}
		var key string
		if err := json.Unmarshal(b[i:end], &key); err != nil {
			return nil, fmt.Errorf("a member name: %w", err)
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, fmt.Errorf("expected : after %q, got %s", key, what(b, i))
		}
		i = skipSpace(b, i+1)
		end, err = skipValue(b, i)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", key, err)
		}
		out = append(out, Member{Key: key, Value: b[i:end]})
		i = skipSpace(b, end)
		if i >= len(b) {
			return nil, fmt.Errorf("the object is not closed")
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return out, trailing(b, i+1)
		default:
			return nil, fmt.Errorf("expected , or } after %q, got %s", key, what(b, i))
		}
	}
}

func trailing(b []byte, i int) error {
	if i = skipSpace(b, i); i < len(b) {
		return fmt.Errorf("%s after the end", what(b, i))
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// what names the byte at b[i] for an error, inertly.
func what(b []byte, i int) string {
	if i >= len(b) {
		return "the end"
	}
	r, _ := utf8.DecodeRune(b[i:])
	if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError {
		return fmt.Sprintf("byte 0x%02x", b[i])
	}
	return strconv.QuoteRune(r)
}

// skipValue returns the end of the JSON value that starts at b[i]:
// strings are read to their closing quote, brackets are matched (a stack
// of one byte per level), anything else runs to the next delimiter.
func skipValue(b []byte, i int) (int, error) {
	end, _, err := scan(b, i)
	return end, err
}

// depth is how deeply the value b nests (0 for a scalar, 1 for [] or {}).
func depth(b []byte) (int, error) {
	i := skipSpace(b, 0)
	end, d, err := scan(b, i)
	if err != nil {
		return d, err
	}
	return d, trailing(b, end)
}

// scan reads one value from b[i], returning its end and its depth.
func scan(b []byte, i int) (end, maxDepth int, err error) {
	var stack []byte
	for {
		if i >= len(b) {
			return i, maxDepth, fmt.Errorf("the value ends early")
		}
		switch c := b[i]; {
		case c == '"':
			j := i + 1
			for {
				k := bytes.IndexByte(b[j:], '"')
				if k < 0 {
					return len(b), maxDepth, fmt.Errorf("a string is not closed")
				}
				j += k
				// A quote after an odd number of backslashes is escaped.
				n := 0
				for n < j-i-1 && b[j-1-n] == '\\' {
					n++
				}
				if n%2 == 0 {
					break
				}
				j++
			}
			i = j + 1
		case c == '[' || c == '{':
			stack = append(stack, c)
			maxDepth = max(maxDepth, len(stack))
			i++
		case c == ']' || c == '}':
			if len(stack) == 0 || (c == ']') != (stack[len(stack)-1] == '[') {
				return i, maxDepth, fmt.Errorf("%s does not close what is open", what(b, i))
			}
			stack = stack[:len(stack)-1]
			i++
		case c == ',' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if len(stack) == 0 {
				return i, maxDepth, fmt.Errorf("expected a value, got %s", what(b, i))
			}
			i++
		default: // a number, true, false, null (or garbage): up to a delimiter
			j := i
			for j < len(b) && !strings.ContainsRune(",:]} \t\n\r[{\"", rune(b[j])) {
				j++
			}
			if j == i {
				return i, maxDepth, errNotJSON
			}
			i = j
		}
		if len(stack) == 0 {
			return i, maxDepth, nil
		}
	}
}
