package diff

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestLinesFourLineEdit is the edit that used to freeze the TUI on ctrl+s:
// one value changed in a four-line document.
func TestLinesFourLineEdit(t *testing.T) {
	a, _ := Canonical([]byte(`{"a":1,"b":"x"}`))
	b, _ := Canonical([]byte(`{"a":1,"b":"yz"}`))
	got := Lines(a, b)
	want := []Line{
		{Op: Same, Text: `{`},
		{Op: Same, Text: `  "a": 1,`},
		{Op: Delete, Text: `  "b": "x"`, Span: [2]int{8, 9}},
		{Op: Insert, Text: `  "b": "yz"`, Span: [2]int{8, 10}},
		{Op: Same, Text: `}`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func TestLinesEdges(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want []Line
	}{
		{"", "", []Line{{Op: Same, Text: ""}}},
		{"x", "x", []Line{{Op: Same, Text: "x"}}},
		{"", "x", []Line{{Op: Insert, Text: "x"}}},
		{"x", "", []Line{{Op: Delete, Text: "x"}}},
		{"x\ny", "y", []Line{{Op: Delete, Text: "x"}, {Op: Same, Text: "y"}}},
		{"x\ny", "x\nz\ny", []Line{{Op: Same, Text: "x"}, {Op: Insert, Text: "z"}, {Op: Same, Text: "y"}}},
	} {
		if got := Lines(c.a, c.b); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Lines(%q, %q)\ngot  %+v\nwant %+v", c.a, c.b, got, c.want)
		}
	}
}

// checkLines asserts that lines is a diff of a and b: its Same and Delete
// lines spell a, its Same and Insert lines spell b, and spans lie within
// their changed lines.
func checkLines(t *testing.T, a, b string, lines []Line) {
	t.Helper()
	var old, new []string
	for i, l := range lines {
		switch l.Op {
		case Same:
			old, new = append(old, l.Text), append(new, l.Text)
			if l.Span != [2]int{} {
				t.Fatalf("line %d: unchanged line with a span: %+v", i, l)
			}
		case Delete:
			old = append(old, l.Text)
		case Insert:
			new = append(new, l.Text)
		default:
			t.Fatalf("line %d: op %d", i, l.Op)
		}
		if s, e := l.Span[0], l.Span[1]; s < 0 || s > e || e > len(l.Text) {
			t.Fatalf("line %d: span %v outside %q", i, l.Span, l.Text)
		}
	}
	if got, want := strings.Join(old, "\n"), strings.TrimSuffix(a, "\n"); got != want {
		t.Fatalf("Same+Delete lines do not give the proposed text:\ngot  %q\nwant %q", clip(got), clip(want))
	}
	if got, want := strings.Join(new, "\n"), strings.TrimSuffix(b, "\n"); got != want {
		t.Fatalf("Same+Insert lines do not give the edited text:\ngot  %q\nwant %q", clip(got), clip(want))
	}
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func count(lines []Line) (same, del, ins int) {
	for _, l := range lines {
		switch l.Op {
		case Same:
			same++
		case Delete:
			del++
		case Insert:
			ins++
		}
	}
	return
}

// TestLinesRoundTrip diffs random texts over a small alphabet of lines (so
// that there are many equal lines to align, and many edits).
func TestLinesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"{", "}", `  "a": 1,`, `  "a": 2,`, `  "b": "x"`, "[", "]", ""}
	text := func(n int) string {
		var ls []string
		for range n {
			ls = append(ls, alphabet[r.IntN(len(alphabet))])
		}
		s := strings.Join(ls, "\n")
		if r.IntN(3) == 0 {
			s += "\n"
		}
		return s
	}
	for i := range 2000 {
		a, b := text(r.IntN(40)), text(r.IntN(40))
		if i%4 == 0 { // a small edit of a
			ls := strings.Split(a, "\n")
			j := r.IntN(len(ls))
			ls[j] = alphabet[r.IntN(len(alphabet))]
			b = strings.Join(ls, "\n")
		}
		checkLines(t, a, b, Lines(a, b))
	}
}

// bigJSON is canonical JSON of at least size bytes: an array of records,
// their values drawn from seed.
func bigJSON(size int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 0))
	word := func() string {
		const letters = "abcdefghijklmnopqrstuvwxyz"
		b := make([]byte, 8+r.IntN(16))
		for i := range b {
			b[i] = letters[r.IntN(len(letters))]
		}
		return string(b)
	}
	var recs []any
	n := 0
	for n < size {
		rec := map[string]any{
			"id":     json.Number(fmt.Sprint(r.IntN(1 << 30))),
			"name":   word() + " " + word(),
			"email":  word() + "@example.com",
			"active": r.IntN(2) == 0,
			"score":  json.Number(fmt.Sprintf("%d.%02d", r.IntN(100), r.IntN(100))),
			"tags":   []any{word(), word()},
			"note":   nil,
			"about":  strings.Join([]string{word(), word(), word(), word(), word()}, " "),
		}
		raw, _ := json.MarshalIndent(rec, "  ", "  ")
		n += len(raw) + 4
		recs = append(recs, rec)
	}
	raw, err := json.Marshal(recs)
	if err != nil {
		panic(err)
	}
	c, err := Canonical(raw)
	if err != nil {
		panic(err)
	}
	return c
}

// fewChanges edits n lines of a spread through it, and inserts and deletes
// one line each.
func fewChanges(a string, n int) string {
	ls := strings.Split(a, "\n")
	for i := 1; i <= n; i++ {
		j := i * len(ls) / (n + 1)
		for !strings.Contains(ls[j], `"`) {
			j++
		}
		ls[j] = strings.Replace(ls[j], `"`, `"changed `, 1)
	}
	// Between edited lines: at 1/7 and 5/7 of the way.
	k := len(ls) / 7
	ls = append(ls[:k], append([]string{`    "extra": true,`}, ls[k:]...)...)
	ls = append(ls[:5*k], ls[5*k+1:]...)
	return strings.Join(ls, "\n")
}

var (
	big1, big2 string // two unrelated documents of the same shape
	bigFew     string // big1 with a few changes
)

func bigInputs() (string, string, string) {
	if big1 == "" {
		big1 = bigJSON(1<<20, 1)
		big2 = bigJSON(1<<20, 2)
		bigFew = fewChanges(big1, 5)
	}
	return big1, big2, bigFew
}

func TestLinesLargeFewChanges(t *testing.T) {
	a, _, b := bigInputs()
	lines := Lines(a, b)
	checkLines(t, a, b, lines)
	// 5 edited lines, 1 inserted, 1 deleted: the diff is minimal.
	if _, del, ins := count(lines); del != 6 || ins != 6 {
		t.Errorf("%d deletions and %d insertions, want 6 and 6", del, ins)
	}
}

func TestLinesLargeAllChanged(t *testing.T) {
	a, b, _ := bigInputs()
	lines := Lines(a, b)
	checkLines(t, a, b, lines)
}

func BenchmarkLinesSmall(b *testing.B) {
	x, _ := Canonical([]byte(`{"a":1,"b":"x"}`))
	y, _ := Canonical([]byte(`{"a":1,"b":"yz"}`))
	for b.Loop() {
		Lines(x, y)
	}
}

func BenchmarkLines1MBFewChanges(b *testing.B) {
	x, _, y := bigInputs()
	b.SetBytes(int64(len(x)))
	for b.Loop() {
		Lines(x, y)
	}
}

func BenchmarkLines1MBAllChanged(b *testing.B) {
	x, y, _ := bigInputs()
	b.SetBytes(int64(len(x)))
	for b.Loop() {
		Lines(x, y)
	}
}

func BenchmarkLines1MBSame(b *testing.B) {
	x, _, _ := bigInputs()
	y := strings.Clone(x)
	b.SetBytes(int64(len(x)))
	for b.Loop() {
		Lines(x, y)
	}
}

// bigArray is canonical JSON of at least size bytes: an array of strings
// drawn from seed, keyless lines that are all different.
func bigArray(size int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 0))
	var words []string
	for n := 0; n < size; {
		b := make([]byte, 8+r.IntN(24))
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		words = append(words, "  \""+string(b)+"\",")
		n += len(b) + 6
	}
	return "[\n" + strings.TrimSuffix(strings.Join(words, "\n"), ",") + "\n]"
}

func BenchmarkLines1MBArrayAllChanged(b *testing.B) {
	x, y := bigArray(1<<20, 1), bigArray(1<<20, 2)
	b.SetBytes(int64(len(x)))
	for b.Loop() {
		Lines(x, y)
	}
}

// BenchmarkLines1MBRepeated: 1 MB of equal lines, 500 more of them in the
// edit: every diagonal the diff explores slides the whole length.
func BenchmarkLines1MBRepeated(b *testing.B) {
	x := "[\n" + strings.Repeat("    0,\n", 1<<20/7) + "    0\n]"
	y := "[\n" + strings.Repeat("    0,\n", 1<<20/7+500) + "    0\n]"
	b.SetBytes(int64(len(x)))
	for b.Loop() {
		Lines(x, y)
	}
}

// referenceSpans is markSpans as first written: for each deleted line,
// the first untaken inserted line of its run with the same key or,
// keyless both, alike. Quadratic, and unbounded.
func referenceSpans(lines []Line) {
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
		used := map[int]bool{}
		for a := d; a < ins; a++ {
			for b := ins; b < i; b++ {
				x, y := &lines[a], &lines[b]
				ka, kb := jsonKey(x.Text), jsonKey(y.Text)
				p := commonPrefix(x.Text, y.Text)
				s := commonSuffix(x.Text[p:], y.Text[p:])
				ok := ka == kb && (ka != "" || 2*(p+s) >= min(len(x.Text), len(y.Text)) && p+s > 0)
				if used[b] || !ok {
					continue
				}
				used[b] = true
				mark(x, y, p, s) // the spans' own rule, tested on its own
				break
			}
		}
	}
}

// TestSpansMatchReference: within its budget, markSpans pairs exactly as
// the simple quadratic pairing does.
func TestSpansMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{`  "a": 1,`, `  "a": 22,`, `  "b": "x"`, `  "b": "xy",`, `  "abc",`, `  "abd",`, `  "zzzz"`, `  {`, `  },`, `  }`, ``, `é`, `è`}
	for range 3000 {
		var lines []Line
		for range r.IntN(60) {
			op := Op(r.IntN(3))
			lines = append(lines, Line{Op: op, Text: alphabet[r.IntN(len(alphabet))]})
		}
		want := append([]Line(nil), lines...)
		referenceSpans(want)
		markSpans(lines)
		if !reflect.DeepEqual(lines, want) {
			t.Fatalf("got  %+v\nwant %+v", lines, want)
		}
	}
}

// TestLinesLargeArrayAllChanged: a run of unalike array elements far over
// the pairing budget still comes out a correct diff, quickly.
func TestLinesLargeArrayAllChanged(t *testing.T) {
	a, b := bigArray(1<<20, 1), bigArray(1<<20, 2)
	lines := Lines(a, b)
	checkLines(t, a, b, lines)
}
