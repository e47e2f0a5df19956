package inert

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{"plain", "a\nb\tc", "\x1b]0;title\x07", "\x1b[31mred", "\u009b2J", "\u202eexe", "zero\u200bwidth\ufeff",
	"tag\U000E0041", "bad\xff\x9butf8", "\r\x00\x7f", `{"a":"\u001b","b":[1,"\u202e"]}`, "[1,\r2]", "\"\u202e\"", "{\"a\":\"x\\\"\u009b\"}"}

// unsafe reports a rune of s that a terminal would act on or that hides
// itself; with lines, newlines and tabs are allowed.
func unsafe(s string, lines bool) (rune, bool) {
	for _, r := range s {
		switch kind(r) {
		case plain:
		case layout:
			if !lines {
				return r, true
			}
		default:
			return r, true
		}
	}
	return 0, false
}

// Whatever the input, Text, Line and Block write nothing a terminal acts on
// or hides, in valid UTF-8; Block keeps every line, Line makes one;
// Check warns exactly when Text changes something.
func FuzzText(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		block, w := Text(s, true)
		line := Line(s)
		if block != Block(s) {
			t.Fatal("Block is not Text(s, true)")
		}
		for _, out := range []struct {
			s     string
			lines bool
		}{{block, true}, {line, false}} {
			if r, bad := unsafe(out.s, out.lines); bad {
				t.Fatalf("%q: %U left in %q", s, r, out.s)
			}
			if !utf8.ValidString(out.s) {
				t.Fatalf("%q: output is not UTF-8: %q", s, out.s)
			}
		}
		if strings.Count(block, "\n") != strings.Count(s, "\n") {
			t.Fatalf("%q: Block changed the lines: %q", s, block)
		}
		if strings.ContainsAny(line, "\n\t") {
			t.Fatalf("%q: Line kept a newline or tab: %q", s, line)
		}
		if Check(s) != w || (w == 0) != (block == s) {
			t.Fatalf("%q: Check %v, Text warns %v, changed %v", s, Check(s), w, block != s)
		}
	})
}

// JSON writes nothing a terminal acts on or hides (but newlines and tabs),
// and JSON stays JSON that means the same.
func FuzzJSON(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out := JSON(b)
		if r, bad := unsafe(string(out), true); bad && utf8.Valid(b) {
			t.Fatalf("%q: %U left in %q", b, r, out)
		}
		if !json.Valid(b) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%q: no longer JSON: %q", b, out)
		}
		var x, y any
		if err := json.Unmarshal(b, &x); err != nil {
			return
		}
		if err := json.Unmarshal(out, &y); err != nil || !reflect.DeepEqual(x, y) {
			t.Fatalf("%q: the meaning changed: %q (%v)", b, out, err)
		}
	})
}
