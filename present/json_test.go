package present

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hitl-sh/hitl/inert"
)

func indent(t *testing.T, in string, o JSONOptions) string {
	t.Helper()
	out, err := IndentJSON([]byte(in), o)
	if err != nil {
		t.Fatalf("IndentJSON(%q): %v", in, err)
	}
	return out
}

func TestFormatJSONDecodesStrings(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"last_seen \u003c now()"`, `"last_seen < now()"`},
		{`"a \u003e b \u0026 c"`, `"a > b & c"`},
		{`"ren\u00e9@exemple.fr"`, `"rené@exemple.fr"`},
		{`"Caf\u00e9 \u00e0 10h \u2014 r\u00e9union"`, `"Café à 10h — réunion"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`"\uD83D\uDE00"`, `"😀"`},
		{`"a\/b"`, `"a/b"`},
		{`"q\"uote \\ back"`, `"q\"uote \\ back"`},
		{`"\u0022\u005c"`, `"\"\\"`},
		{`"l1\nl2\tt\rr"`, `"l1\nl2\tt\rr"`},
		{`"\u000a\u0009\u000d"`, `"\n\t\r"`},
		{`"\b\f"`, `"\u0008\u000c"`},
		{`"\u0000"`, `"\u0000"`},
		{`"\u001b[2J"`, `"\u001b[2J"`},
		{`"\u001B"`, `"\u001b"`},
		{`"del\u007f c1\u009b"`, `"del\u007f c1\u009b"`},
		{"\"raw del\x7f c1\u009b\"", `"raw del\u007f c1\u009b"`},
		{`"safe\u202etxt.exe"`, `"safe\u202etxt.exe"`},
		{"\"raw\u202eRLO \u2066isolate\u2069\"", `"raw\u202eRLO \u2066isolate\u2069"`},
		{`"zero\u200bwidth\ufeff"`, `"zero\u200bwidth\ufeff"`},
		{"\"raw\u200bzw\u00ad\"", `"raw\u200bzw\u00ad"`},
		{`"tag\udb40\udc41"`, `"tag\udb40\udc41"`},
		{"\"raw tag\U000E0041\"", `"raw tag\udb40\udc41"`},
		// A surrogate escape without its partner is kept as sent.
		{`"lone \ud800 high"`, `"lone \ud800 high"`},
		{`"lone \uDC00 low"`, `"lone \udc00 low"`},
		{`"\ud800\u0041"`, `"\ud800A"`},
		{`"\ud800\ud83d\ude00"`, `"\ud800😀"`},
		// Bytes that are not UTF-8 become \ufffd; a real U+FFFD is itself.
		{"\"bad\xff\xfe\"", `"bad\ufffd\ufffd"`},
		{"\"surrogate bytes \xed\xa0\x80\"", `"surrogate bytes \ufffd\ufffd\ufffd"`},
		{"\"real \ufffd\"", "\"real \ufffd\""},
		{`"\ufffd"`, "\"\ufffd\""},
		{`"plain, 世界"`, `"plain, 世界"`},
		{`""`, `""`},
	}
	for _, tt := range tests {
		if got := indent(t, tt.in, JSONOptions{}); got != tt.want {
			t.Errorf("IndentJSON(%s) = %s, want %s", tt.in, got, tt.want)
		}
		// As a key, the same.
		in := `{` + tt.in + `:1}`
		want := "{\n  " + tt.want + ": 1\n}"
		if got := indent(t, in, JSONOptions{}); got != want {
			t.Errorf("IndentJSON(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestFormatJSONKeepsNumbersOrderAndDuplicates(t *testing.T) {
	in := `{"z":1.0,"a":1e400,"m":12345678901234567890,"n":-0.0,"e":1E+2,"f":2.50e-3,"a":"again","k":[true,false,null]}`
	want := `{
  "z": 1.0,
  "a": 1e400,
  "m": 12345678901234567890,
  "n": -0.0,
  "e": 1E+2,
  "f": 2.50e-3,
  "a": "again",
  "k": [
    true,
    false,
    null
  ]
}`
	if got := indent(t, in, JSONOptions{}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFormatJSONLayout(t *testing.T) {
	tests := []struct {
		in, want string
		o        JSONOptions
	}{
		{" \t\r\n 1 \n", "1", JSONOptions{}},
		{"true", "true", JSONOptions{}},
		{"{ }", "{}", JSONOptions{}},
		{"[\n]", "[]", JSONOptions{}},
		{`{"a":{},"b":[],"c":[{}]}`, "{\n  \"a\": {},\n  \"b\": [],\n  \"c\": [\n    {}\n  ]\n}", JSONOptions{}},
		{`[1,[2]]`, "[\n\t1,\n\t[\n\t\t2\n\t]\n]", JSONOptions{Indent: "\t"}},
		{`[1]`, "[\n  1\n]", JSONOptions{Indent: "\x1b[2J"}}, // not layout: the default
		{`[1]`, "[\n    1\n]", JSONOptions{Indent: "    "}},
		{`[[],{ },[1]]`, "[\n  [],\n  {},\n  … nested deeper than 1 level: shown without indentation\n  [1]\n]", JSONOptions{MaxDepth: 1}},
		{`[[[1,2],{"a":[3]}]]`, "[\n  [\n    … nested deeper than 2 levels: shown without indentation\n    [1, 2],\n    {\"a\": [3]}\n  ]\n]", JSONOptions{MaxDepth: 2}},
		{`[[1,2],{"a":[3]}]`, "[\n  … nested deeper than 1 level: shown without indentation\n  [1, 2],\n  {\"a\": [3]}\n]", JSONOptions{MaxDepth: 1}},
		{`{"k":[1,{"a":[]}],"l":{"b":2}}`, "{\n  \"k\": [\n    1,\n    … nested deeper than 2 levels: shown without indentation\n    {\"a\": []}\n  ],\n  \"l\": {\n    \"b\": 2\n  }\n}", JSONOptions{MaxDepth: 2}},
	}
	for _, tt := range tests {
		if got := indent(t, tt.in, tt.o); got != tt.want {
			t.Errorf("IndentJSON(%q, %+v) =\n%s\nwant\n%s", tt.in, tt.o, got, tt.want)
		}
	}
}

type piece struct {
	k JSONKind
	s string
}

func pieces(t testing.TB, in string, o JSONOptions) []piece {
	t.Helper()
	var ps []piece
	if err := FormatJSON([]byte(in), o, func(k JSONKind, s string) { ps = append(ps, piece{k, s}) }); err != nil {
		t.Fatalf("FormatJSON(%q): %v", in, err)
	}
	return ps
}

// jsonText is the pieces without notes (and the space that leads each note
// in): what must still be JSON.
func jsonText(ps []piece) string {
	var b strings.Builder
	for i, p := range ps {
		if p.k == JSONNote || p.k == JSONSpace && i+1 < len(ps) && ps[i+1].k == JSONNote && p.s == " " {
			continue
		}
		b.WriteString(p.s)
	}
	return b.String()
}

func allText(ps []piece) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.s)
	}
	return b.String()
}

func notes(ps []piece) []string {
	var ns []string
	for _, p := range ps {
		if p.k == JSONNote {
			ns = append(ns, p.s)
		}
	}
	return ns
}

func TestFormatJSONKinds(t *testing.T) {
	got := pieces(t, `{"k":["s",1,true,null,{}]}`, JSONOptions{})
	want := []piece{
		{JSONPunct, "{"}, {JSONSpace, "\n  "}, {JSONKey, `"k"`}, {JSONPunct, ": "}, {JSONPunct, "["},
		{JSONSpace, "\n    "}, {JSONString, `"s"`}, {JSONPunct, ","},
		{JSONSpace, "\n    "}, {JSONNumber, "1"}, {JSONPunct, ","},
		{JSONSpace, "\n    "}, {JSONLiteral, "true"}, {JSONPunct, ","},
		{JSONSpace, "\n    "}, {JSONLiteral, "null"}, {JSONPunct, ","},
		{JSONSpace, "\n    "}, {JSONPunct, "{}"},
		{JSONSpace, "\n  "}, {JSONPunct, "]"}, {JSONSpace, "\n"}, {JSONPunct, "}"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pieces:\n%v\nwant\n%v", got, want)
	}
}

func TestFormatJSONInvalid(t *testing.T) {
	for _, in := range []string{
		"", " ", "{", "[", `{"a"`, `{"a":`, `{"a":1`, `{"a":1,`, `[1,`, `[1`, `"abc`, `"ab\`, `"\u12`,
		`{"a":1}x`, `1 2`, `[] []`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{"a"}`, `{"a" 1}`, `{1:2}`, `{'a':1}`,
		`[1 2]`, `{"a":1 "b":2}`, `[}`, `{]`, `]`, `}`, `:`, `,`,
		`01`, `1.`, `.5`, `+1`, `-`, `-a`, `1e`, `1e+`, `0x10`, `NaN`, `Infinity`, `- 1`,
		`tru`, `nul`, `falsy`, `True`, `nulll`,
		"\"tab\tinside\"", "\"nl\ninside\"", "\"nul\x00\"", `"\x41"`, `"\'"`, `"\uZZZZ"`,
		"\ufeff{}", "\x00", "{}\x00",
		strings.Repeat("[", 100000), strings.Repeat("[", 1000) + strings.Repeat("]", 999),
	} {
		called := false
		err := FormatJSON([]byte(in), JSONOptions{}, func(JSONKind, string) { called = true })
		if err == nil {
			t.Errorf("FormatJSON(%.40q): no error", in)
		}
		if called {
			t.Errorf("FormatJSON(%.40q): emitted before failing", in)
		}
		if json.Valid([]byte(in)) {
			t.Errorf("%q is valid JSON after all", in)
		}
		if s, err := IndentJSON([]byte(in), JSONOptions{}); err == nil || s != "" {
			t.Errorf("IndentJSON(%.40q) = %q, %v", in, s, err)
		}
	}
}

// tokens is the encoding/json token stream of data, numbers as written.
func tokens(t testing.TB, data string) []any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var toks []any
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return toks
		}
		if err != nil {
			t.Fatalf("tokens of %.200q: %v", data, err)
		}
		toks = append(toks, tok)
	}
}

// value is data decoded, numbers as written.
func value(t testing.TB, data string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %.200q: %v", data, err)
	}
	return v
}

var corpus = []string{
	`null`, `0`, `-1.5e+10`, `"s"`, `[]`, `{}`,
	`{"name":"send_email","args":{"to":["ren\u00e9@exemple.fr","b@x.io"],"subject":"Caf\u00e9 \u00e0 10h \u2014 r\u00e9union","body":"Bonjour,\n\nÀ demain.\n","urgent":false,"cc":null,"n":3}}`,
	`{"sql":"SELECT * FROM t WHERE last_seen \u003c now() AND a \u003e 1 \u0026\u0026 b","params":[1,2.50,1e400,12345678901234567890]}`,
	`{"attack":"\u001b]0;pwned\u0007\u001b[2J","bidi":"invoice\u202efdp.exe","zw":"a\u200bb\u200cc\u200dd\u2060e\ufefff","tag":"\udb40\udc41","c1":"\u009b31m"}`,
	"{\"raw\":\"\x7f\u009b\u202e\u200b\U000E0041\",\"bad\":\"\xff\xfe\xed\xa0\x80\",\"ok\":\"\ufffd\"}",
	`{"lone":["\ud800","\udfff","\ud800\u0041","\ud800\ud800\udc00","x\udc00\ud800y"]}`,
	`{"k":1,"k":2,"k":{"k":[{"k":3}]}}`,
	strings.Repeat("[", 30) + `"deep",{"a":[1,{"b":"c"}]}` + strings.Repeat("]", 30),
	` { "spaced" : [ 1 , 2 , { "x" : "y" } ] , "e" : [ ] , "o" : { } } `,
	`"\"\\\/\b\f\n\r\t\u0000\u001f\u0020"`,
	`{"emoji":"\ud83d\ude00 😀 👩‍💻","cjk":"世界","rtl":"שלום مرحبا"}`,
}

// TestFormatJSONKeepsMeaning: for every document of the corpus, the output
// reads back as the same tokens (key order, duplicates, numbers as
// written, decoded strings), and nothing in it is dangerous or invisible.
func TestFormatJSONKeepsMeaning(t *testing.T) {
	for _, in := range corpus {
		for _, o := range []JSONOptions{{}, {MaxDepth: 2}, {MaxDepth: 1, Indent: "\t"}} {
			ps := pieces(t, in, o)
			out := jsonText(ps)
			if !reflect.DeepEqual(tokens(t, out), tokens(t, in)) {
				t.Errorf("%s (%+v): meaning changed:\n%s", in, o, out)
			}
			if a, b := value(t, in), value(t, out); !reflect.DeepEqual(a, b) {
				t.Errorf("%s: value differs:\n%s", in, out)
			}
			all := allText(ps)
			if w := inert.Check(all); w != 0 {
				t.Errorf("%s: output not inert (%v):\n%q", in, w, all)
			}
			if o.Indent == "" && strings.Contains(all, "\t") {
				t.Errorf("%s: raw tab in output %q", in, all)
			}
		}
	}
}

// TestEscapedMatchesInert: escaped is inert's rule for what must not be
// printed as itself (plus the layout characters a JSON string cannot hold
// raw), for every character there is.
func TestEscapedMatchesInert(t *testing.T) {
	var buf [utf8.UTFMax]byte
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		n := utf8.EncodeRune(buf[:], r)
		want := inert.Check(string(buf[:n])) != 0 || r == '\n' || r == '\t'
		if escaped(r) != want {
			t.Fatalf("escaped(%U) = %v, inert says %v", r, escaped(r), want)
		}
	}
}

func deep(n int) string {
	return strings.Repeat(`{"a":[`, n) + `"x"` + strings.Repeat(`]}`, n)
}

// deep9000 is the payload that made `hitl show` print 162 MB: 90 KB, 9,000
// levels deep.
var deep9000 = strings.Repeat(`{"level":`, 9000) + "1" + strings.Repeat("}", 9000)

func TestFormatJSONDeepIsLinear(t *testing.T) {
	if out := indent(t, deep9000, JSONOptions{}); len(out) > 2*len(deep9000) {
		t.Errorf("9,000 deep: %d bytes in, %d out", len(deep9000), len(out))
	}
	for _, in := range []string{
		strings.Repeat("[", 100000) + strings.Repeat("]", 100000),
		strings.Repeat("[", 100000) + "1" + strings.Repeat("]", 100000),
		deep(50000),
	} {
		ps := pieces(t, in, JSONOptions{})
		out := allText(ps)
		if len(out) >= 4*len(in)+4096 {
			t.Errorf("%d bytes in, %d out", len(in), len(out))
		}
		ns := notes(ps)
		if len(ns) != 1 || ns[0] != "… nested deeper than 24 levels: shown without indentation" {
			t.Errorf("notes: %q", ns)
		}
		longest := 0
		for _, l := range strings.Split(out, "\n") {
			longest = max(longest, len(l)-len(strings.TrimLeft(l, " ")))
		}
		if longest != 2*DefaultJSONDepth {
			t.Errorf("deepest indentation %d", longest)
		}
	}
	// Within encoding/json's own depth limit, the text still means the same.
	in := strings.Repeat("[", 4000) + deep(2000) + strings.Repeat("]", 4000)
	if out := jsonText(pieces(t, in, JSONOptions{})); !reflect.DeepEqual(tokens(t, out), tokens(t, in)) {
		t.Errorf("deep: meaning changed")
	}
}

func TestFormatJSONFolds(t *testing.T) {
	const hint = "hitl show ID --raw prints all of it"
	o := JSONOptions{MaxString: 10, FoldHint: hint}
	tests := []struct{ in, want string }{
		{`"0123456789"`, `"0123456789"`},
		{`"0123456789A"`, `"0123456789" … 1 B more not shown (` + hint + `)`},
		// Cut between characters: é is two bytes, 😀 four, an escape one.
		{`"ééééééé"`, `"ééééé" … 4 B more not shown (` + hint + `)`},
		{`"0123456\ud83d\ude00"`, `"0123456" … 4 B more not shown (` + hint + `)`},
		{`"012345678\u001b"`, `"012345678\u001b"`},
		{`"012345678\u001bxy"`, `"012345678\u001b" … 2 B more not shown (` + hint + `)`},
		{"\"012345678\xff\"", `"012345678" … 3 B more not shown (` + hint + `)`},
		{`["0123456789AB","x"]`, "[\n  \"0123456789\", … 2 B more not shown (" + hint + ")\n  \"x\"\n]"},
		{`{"0123456789AB":"0123456789ABC"}`, "{\n  \"0123456789\": \"0123456789\" … 2 B more not shown (" + hint + ") … 3 B more not shown (" + hint + ")\n}"},
	}
	for _, tt := range tests {
		if got := indent(t, tt.in, o); got != tt.want {
			t.Errorf("IndentJSON(%s) =\n%s\nwant\n%s", tt.in, got, tt.want)
		}
	}
	// Too deep to indent: the note follows the string on its line.
	got := indent(t, `[["0123456789AB",1]]`, JSONOptions{MaxDepth: 1, MaxString: 10})
	want := "[\n  … nested deeper than 1 level: shown without indentation\n  [\"0123456789\" … 2 B more not shown , 1]\n]"
	if got != want {
		t.Errorf("compact fold:\n%s\nwant\n%s", got, want)
	}
	// The hint is made inert.
	got = indent(t, `"0123456789AB"`, JSONOptions{MaxString: 10, FoldHint: "id\x1b[2J\u202e"})
	if inert.Check(got) != 0 || !strings.Contains(got, `(id\u001b[2J<U+202E>)`) {
		t.Errorf("hint: %q", got)
	}
}

func TestFormatJSONFoldsABigString(t *testing.T) {
	body := strings.Repeat("0123456789abcdé", 700_000) // 11.2 MB
	in := `{"log":"` + body + `","after":1}`
	ps := pieces(t, in, JSONOptions{MaxString: 64 << 10, FoldHint: "hitl show ID --raw prints all of it"})
	out := allText(ps)
	if len(out) > 70<<10 {
		t.Errorf("%d bytes out", len(out))
	}
	ns := notes(ps)
	if want := fmt.Sprintf("… %s more not shown (hitl show ID --raw prints all of it)", Size(len(body)-64<<10)); len(ns) != 1 || ns[0] != want {
		t.Errorf("notes %q, want %q", ns, want)
	}
	text := jsonText(ps)
	var v struct {
		Log   string
		After int
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Log) > 64<<10 || len(v.Log) < 64<<10-1 || !strings.HasPrefix(body, v.Log) || v.After != 1 {
		t.Errorf("folded to %d bytes, after=%d", len(v.Log), v.After)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KB", 10<<20 - 64<<10: "9.9 MB", 3 << 30: "3.0 GB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestDecodedLen(t *testing.T) {
	for _, s := range []string{`abc`, `\n\"\\\/`, `\u00e9\u2014\ud83d\ude00`, `\ud800x\udc00`, "\xff\xfeé", `a\u0000b`} {
		var v string
		if err := json.Unmarshal([]byte(`"`+s+`"`), &v); err != nil {
			t.Fatal(err)
		}
		if got := decodedLen(s); got != len(v) {
			t.Errorf("decodedLen(%q) = %d, want %d", s, got, len(v))
		}
	}
}

// old is what the CLI and the TUI do today, for comparison.
func old(raw []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return string(inert.JSON(b.Bytes()))
}

func benchInputs() []struct {
	name string
	in   []byte
	o    JSONOptions
} {
	var big strings.Builder
	big.WriteString(`{"rows":[`)
	for i := 0; big.Len() < 1<<20; i++ {
		if i > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, `{"id":%d,"name":"ren\u00e9 %d","email":"user%d@exemple.fr","score":%d.25,"tags":["a","b\u2014c"],"active":true,"note":null}`, i, i, i, i)
	}
	big.WriteString(`]}`)
	return []struct {
		name string
		in   []byte
		o    JSONOptions
	}{
		{"small", []byte(corpus[6]), JSONOptions{}},
		{"1MB", []byte(big.String()), JSONOptions{}},
		{"10MB-string", []byte(`{"log":"` + strings.Repeat("0123456789abcdef", 10<<16) + `"}`), JSONOptions{MaxString: 64 << 10}},
		{"9000-deep", []byte(deep9000), JSONOptions{}},
	}
}

func BenchmarkIndentJSON(b *testing.B) {
	for _, in := range benchInputs() {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.in)))
			var n int
			for b.Loop() {
				out, err := IndentJSON(in.in, in.o)
				if err != nil {
					b.Fatal(err)
				}
				n = len(out)
			}
			b.ReportMetric(float64(n), "out-bytes")
		})
	}
}

func BenchmarkFormatJSON(b *testing.B) {
	for _, in := range benchInputs() {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.in)))
			for b.Loop() {
				if err := FormatJSON(in.in, in.o, func(JSONKind, string) {}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOldIndent is json.Indent then inert.JSON, as today.
func BenchmarkOldIndent(b *testing.B) {
	for _, in := range benchInputs() {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.in)))
			var n int
			for b.Loop() {
				n = len(old(in.in))
			}
			b.ReportMetric(float64(n), "out-bytes")
		})
	}
}

func TestSkipPlain(t *testing.T) {
	for n := 0; n < 20; n++ {
		for _, c := range []byte{0, 0x1f, '"', '\\'} {
			for at := 0; at <= n; at++ {
				b := bytes.Repeat([]byte{'a'}, n)
				for k := range b {
					b[k] = byte(0x20 + (k*37)%0xe0) // every other byte, none special
					if b[k] == '"' || b[k] == '\\' {
						b[k] = 'x'
					}
				}
				want := n
				if at < n {
					b[at] = c
					want = at
				}
				if got := skipPlain(string(b), 0); got != want {
					t.Fatalf("skipPlain(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}
