// Package diff compares two JSON documents the way a reviewer reads them: a
// structural summary ("$.body changed", "$.cc[1] added") and a line diff of
// their canonical form with the changed part of each changed line marked.
// It computes; it does not render.
package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// Canonical is raw JSON with sorted keys and two-space indentation. Numbers
// keep their digits as written; strings are re-escaped by encoding/json.
func Canonical(raw []byte) (string, error) {
	v, err := decode(raw)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil { // maps encode with sorted keys
		return "", err
	}
	return strings.TrimRight(buf.String(), "\n"), nil
}

// Equal reports whether a and b are the same JSON value (key order and
// number spelling aside: 1.0 and 1 differ, as the graph may see them differ).
func Equal(a, b []byte) bool {
	ca, err1 := Canonical(a)
	cb, err2 := Canonical(b)
	return err1 == nil && err2 == nil && ca == cb
}

func decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

// Kind of a structural change.
type Kind string

const (
	Added   Kind = "added"
	Removed Kind = "removed"
	Changed Kind = "changed"
)

// Change is one difference at a JSONPath.
type Change struct {
	Path string
	Kind Kind
}

func (c Change) String() string { return c.Path + " " + string(c.Kind) }

// Structural lists what differs between a and b, by path, in document order
// (keys sorted).
func Structural(a, b []byte) ([]Change, error) {
	va, err := decode(a)
	if err != nil {
		return nil, fmt.Errorf("proposed: %w", err)
	}
	vb, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("edited: %w", err)
	}
	var out []Change
	walk("$", va, vb, &out)
	return out, nil
}

func walk(path string, a, b any, out *[]Change) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			*out = append(*out, Change{path, Changed})
			return
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			p := path + member(k)
			av, inA := x[k]
			bv, inB := y[k]
			switch {
			case !inA:
				*out = append(*out, Change{p, Added})
			case !inB:
				*out = append(*out, Change{p, Removed})
			default:
				walk(p, av, bv, out)
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok {
			*out = append(*out, Change{path, Changed})
			return
		}
		for i := 0; i < max(len(x), len(y)); i++ {
			p := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case i >= len(x):
				*out = append(*out, Change{p, Added})
			case i >= len(y):
				*out = append(*out, Change{p, Removed})
			default:
				walk(p, x[i], y[i], out)
			}
		}
	default:
		if !sameScalar(a, b) {
			*out = append(*out, Change{path, Changed})
		}
	}
}

func sameScalar(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

// member writes a key as .key when it is a plain identifier, else ["key"].
func member(k string) string {
	plain := k != ""
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}

// Op says what a line of a diff is.
type Op int

const (
	Same Op = iota
	Delete
	Insert
)

// Line is one line of a line diff. For a deleted line directly paired with
// an inserted one, Span marks (in bytes) the part that changed.
type Line struct {
	Op   Op
	Text string
	Span [2]int
}

// Lines is the full line diff of two texts (every line, with context).
//
// Lines are aligned by go-udiff's lcs package, which bounds its search:
// past about a hundred differences it stops looking for the shortest
// diff and settles for a correct but coarser one (the differing middle
// deleted, then inserted), so the cost stays linear in the size of the
// texts.
func Lines(a, b string) []Line {
	al, bl := splitLines(a), splitLines(b)
	diffs := lcs.DiffLines(al, bl)
	if len(al) == 0 && len(diffs) == 0 {
		return []Line{{Op: Same}} // two empty texts: one empty line
	}
	n := len(al)
	for _, d := range diffs {
		n += d.ReplEnd - d.ReplStart
	}
	out := make([]Line, 0, n)
	add := func(op Op, lines []string) {
		for _, l := range lines {
			out = append(out, Line{Op: op, Text: strings.TrimSuffix(l, "\n")})
		}
	}
	at := 0
	for _, d := range diffs {
		add(Same, al[at:d.Start])
		add(Delete, al[d.Start:d.End])
		add(Insert, bl[d.ReplStart:d.ReplEnd])
		at = d.End
	}
	add(Same, al[at:])
	markSpans(out)
	return out
}

// splitLines cuts s after each newline, keeping it, so that a last line
// with no newline differs from the same line with one.
func splitLines(s string) []string {
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for s != "" {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		lines = append(lines, s[:i])
		s = s[i:]
	}
	return lines
}

// Pairing keyless lines (array elements) compares each deleted line with
// the untaken inserted lines of its run until one is alike: quadratic in
// the run when they are not alike. A run may spend spanBudgetBase, plus
// spanBudgetPerByte per byte of its lines, on those comparisons (each
// costs one plus the bytes it matches); past that its remaining keyless
// deleted lines go unpaired and show as changed as a whole. A run of about
// a hundred unalike array elements still pairs completely. Keyed lines
// pair by key, at no cost to the budget.
const (
	spanBudgetBase    = 1 << 16
	spanBudgetPerByte = 2
)

// markSpans pairs, within each run of deletions followed by insertions,
// the lines that say the same thing differently: the same object key, or
// (for array elements) mostly the same text. It marks what differs in a
// pair: the text between their common prefix and common suffix. A line with
// no partner is changed as a whole.
func markSpans(lines []Line) {
	for i := 0; i < len(lines); {
		if lines[i].Op != Delete {
			i++
			continue
		}
		d := i
		for i < len(lines) && lines[i].Op == Delete {
			i++
		}
		ins := i
		for i < len(lines) && lines[i].Op == Insert {
			i++
		}
		if ins < i {
			pairRun(lines[d:ins], lines[ins:i])
		}
	}
}

// pairRun gives each deleted line, in order, the first inserted line not
// yet taken that has its key or, keyless, is alike.
func pairRun(dels, inss []Line) {
	budget := spanBudgetBase
	byKey := map[string][]int{} // inserted lines with a key, in order
	var keyless []int
	for j := range inss {
		budget += spanBudgetPerByte * len(inss[j].Text)
		if k := jsonKey(inss[j].Text); k != "" {
			byKey[k] = append(byKey[k], j)
		} else {
			keyless = append(keyless, j)
		}
	}
	for i := range dels {
		budget += spanBudgetPerByte * len(dels[i].Text)
	}
	// next[j] leads to the first untaken keyless line at j or after it
	// (path halving keeps the chains short), so taken lines cost nothing.
	next := make([]int, len(keyless)+1)
	for j := range next {
		next[j] = j
	}
	untaken := func(j int) int {
		for next[j] != j {
			next[j] = next[next[j]]
			j = next[j]
		}
		return j
	}
	for i := range dels {
		x := &dels[i]
		if k := jsonKey(x.Text); k != "" {
			if q := byKey[k]; len(q) > 0 {
				byKey[k] = q[1:]
				y := &inss[q[0]]
				p := commonPrefix(x.Text, y.Text)
				mark(x, y, p, commonSuffix(x.Text[p:], y.Text[p:]))
			}
			continue
		}
		for j := untaken(0); j < len(keyless) && budget > 0; j = untaken(j + 1) {
			y := &inss[keyless[j]]
			p, s, ok := alike(x.Text, y.Text)
			budget -= 1 + p + s
			if ok {
				next[j] = j + 1
				mark(x, y, p, s)
				break
			}
		}
	}
}

// mark sets the spans of a pair whose common prefix is p bytes long and
// common suffix (after it) s bytes. A number the prefix or suffix would cut
// is marked whole: 12.5 against 120 marks "12.5" and "120", not ".5" and
// "0", which read as numbers of their own; 1,000 against 1,500 marks both
// whole, and -40 against 40 the sign with the number.
func mark(x, y *Line, p, s int) {
	a, b := x.Text, y.Text
	if p > 0 && inNumber(a, p-1) && (p < len(a)-s && inNumber(a, p) || p < len(b)-s && inNumber(b, p) ||
		s > 0 && inNumber(a, len(a)-s)) {
		for p > 0 && inNumber(a, p-1) {
			p--
		}
	}
	if ea, eb := len(a)-s, len(b)-s; s > 0 && inNumber(a, ea) &&
		(ea > p && (inNumber(a, ea-1) || a[ea-1] == '-') || eb > p && (inNumber(b, eb-1) || b[eb-1] == '-')) {
		for s > 0 && inNumber(a, len(a)-s) {
			s--
		}
	}
	x.Span = [2]int{p, len(a) - s}
	y.Span = [2]int{p, len(b) - s}
}

// inNumber: t[i] is a digit, or the point or thousands comma between two
// digits (a full stop after a number is not part of it).
func inNumber(t string, i int) bool {
	switch c := t[i]; {
	case c >= '0' && c <= '9':
		return true
	case c == '.' || c == ',':
		return i > 0 && i+1 < len(t) && isDigit(t[i-1]) && isDigit(t[i+1])
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// alike: keyless lines whose common prefix and suffix, p and s bytes, make
// up at least half of the shorter.
func alike(a, b string) (p, s int, ok bool) {
	p = commonPrefix(a, b)
	s = commonSuffix(a[p:], b[p:])
	return p, s, 2*(p+s) >= min(len(a), len(b)) && p+s > 0
}

// jsonKey is the `"key":` a canonical JSON line starts with, if any.
func jsonKey(line string) string {
	t := strings.TrimLeft(line, " ")
	if !strings.HasPrefix(t, `"`) {
		return ""
	}
	for i := 1; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '"':
			if strings.HasPrefix(t[i+1:], ": ") {
				return t[:i+1]
			}
			return ""
		}
	}
	return ""
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	// Do not cut a UTF-8 sequence in two.
	for n > 0 && n < len(a) && a[n]&0xc0 == 0x80 {
		n--
	}
	return n
}

func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	for n > 0 && n < len(a) && a[len(a)-n]&0xc0 == 0x80 {
		n--
	}
	return n
}
