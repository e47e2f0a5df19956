package present

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/inert"
)

// FuzzFormatJSON: valid JSON formats to inert text that reads back as the
// same tokens, and folded, to the same tokens with strings cut short, each
// cut announced; anything else is an error with nothing emitted.
func FuzzFormatJSON(f *testing.F) {
	for _, c := range corpus {
		f.Add([]byte(c))
	}
	for _, c := range []string{`{"a":1,}`, `[1 2]`, `"\ud800`, `01`, "\"\x1f\"", `{"a":[}`, `1e`, `tru`, "\"\xff\"", `"\u00e9\u202e\u200b"`} {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var ps []piece
		err := FormatJSON(raw, JSONOptions{}, func(k JSONKind, s string) { ps = append(ps, piece{k, s}) })
		valid := json.Valid(raw)
		if err != nil {
			if len(ps) != 0 {
				t.Fatalf("%q: emitted %d pieces before failing", raw, len(ps))
			}
			if valid {
				t.Fatalf("%q: valid JSON refused: %v", raw, err)
			}
			return
		}
		if !valid {
			// encoding/json refuses nesting deeper than 10000; FormatJSON
			// does not. Nothing else may differ.
			if bytes.Count(raw, []byte("["))+bytes.Count(raw, []byte("{")) <= 10000 {
				t.Fatalf("%q: invalid JSON accepted", raw)
			}
			return
		}
		if w := inert.Check(allText(ps)); w != 0 {
			t.Fatalf("%q: output not inert (%v): %q", raw, w, allText(ps))
		}
		in := tokens(t, string(raw))
		if out := jsonText(ps); !reflect.DeepEqual(tokens(t, out), in) {
			t.Fatalf("%q: meaning changed: %q", raw, out)
		}

		o := JSONOptions{MaxString: 1 + len(raw)%8, MaxDepth: 1 + len(raw)%3, FoldHint: "raw"}
		ps = pieces(t, string(raw), o)
		if w := inert.Check(allText(ps)); w != 0 {
			t.Fatalf("%q: folded output not inert (%v): %q", raw, w, allText(ps))
		}
		out := tokens(t, jsonText(ps))
		if len(out) != len(in) {
			t.Fatalf("%q (%+v): %d tokens, want %d", raw, o, len(out), len(in))
		}
		cut := 0
		for i := range in {
			a, aok := in[i].(string)
			b, bok := out[i].(string)
			switch {
			case aok && bok:
				if !strings.HasPrefix(a, b) || len(b) > o.MaxString {
					t.Fatalf("%q (%+v): %q folded to %q", raw, o, a, b)
				}
				if a != b {
					cut++
				}
			case in[i] != out[i]:
				t.Fatalf("%q (%+v): token %d is %v, want %v", raw, o, i, out[i], in[i])
			}
		}
		folds := 0
		for _, n := range notes(ps) {
			if strings.HasSuffix(n, " more not shown (raw)") {
				folds++
			}
		}
		if folds != cut {
			t.Fatalf("%q (%+v): %d strings cut, %d notes", raw, o, cut, folds)
		}
	})
}
