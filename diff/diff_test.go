package diff

import (
	"strings"
	"testing"
)

const proposed = `{"to":"customer@example.com","subject":"Your refund","body":"Hello","cc":["support@example.com"],"amount":12.50}`

func TestStructural(t *testing.T) {
	edited := `{"subject":"Your refund","to":"jane@example.com","body":"Hello","cc":["support@example.com","boss@example.com"],"weird key":1}`
	got, err := Structural([]byte(proposed), []byte(edited))
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, c := range got {
		s = append(s, c.String())
	}
	want := `$.amount removed, $.cc[1] added, $.to changed, $["weird key"] added`
	if strings.Join(s, ", ") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(s, ", "), want)
	}
}

func TestCanonicalKeepsNumbersSortsKeys(t *testing.T) {
	c, err := Canonical([]byte(`{"b": 1.50, "a": 12345678901234567890, "c": "<&>"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": 12345678901234567890,\n  \"b\": 1.50,\n  \"c\": \"<&>\"\n}"
	if c != want {
		t.Fatalf("got\n%s", c)
	}
	if !Equal([]byte(`{"a":1,"b":[1,2]}`), []byte(`{"b": [1, 2], "a": 1}`)) || Equal([]byte(`{"a":1}`), []byte(`{"a":1.0}`)) {
		t.Fatal("Equal")
	}
}

func TestLinesMarkChangedWords(t *testing.T) {
	a, _ := Canonical([]byte(proposed))
	b, _ := Canonical([]byte(strings.Replace(proposed, "customer@", "jane@", 1)))
	lines := Lines(a, b)
	var del, ins *Line
	for i := range lines {
		switch lines[i].Op {
		case Delete:
			del = &lines[i]
		case Insert:
			ins = &lines[i]
		}
	}
	if del == nil || ins == nil {
		t.Fatalf("no change in %+v", lines)
	}
	if got := del.Text[del.Span[0]:del.Span[1]]; got != "customer" {
		t.Errorf("deleted span %q", got)
	}
	if got := ins.Text[ins.Span[0]:ins.Span[1]]; got != "jane" {
		t.Errorf("inserted span %q", got)
	}
	if len(lines) != strings.Count(a, "\n")+2 {
		t.Errorf("every line is shown: %d lines", len(lines))
	}
	same := Lines(a, a)
	for _, l := range same {
		if l.Op != Same {
			t.Fatal("identical texts have changes")
		}
	}
}

func TestSpansPairLinesByKey(t *testing.T) {
	a, _ := Canonical([]byte(`{"aspect_ratio":"1:1","num_outputs":1,"output_format":"webp"}`))
	b, _ := Canonical([]byte(`{"aspect_ratio":"16:9","image_file":null,"num_outputs":4,"output_format":"webp"}`))
	marked := map[string]string{}
	for _, l := range Lines(a, b) {
		if l.Op == Same {
			continue
		}
		prefix := map[Op]string{Delete: "-", Insert: "+"}[l.Op]
		marked[prefix+jsonKey(l.Text)] = l.Text[l.Span[0]:l.Span[1]]
	}
	// 1:1 to 16:9: the 1 became 16, so no number is cut in two.
	want := map[string]string{`-"aspect_ratio"`: "1:1", `+"aspect_ratio"`: "16:9", `-"num_outputs"`: "1", `+"num_outputs"`: "4", `+"image_file"`: ""}
	for k, v := range want {
		if marked[k] != v {
			t.Errorf("%s: span %q, want %q (all: %q)", k, marked[k], v, marked)
		}
	}
}

// A changed number is marked whole, in a value or inside a string; text
// around it that did not change is not marked.
func TestSpansDoNotCutNumbers(t *testing.T) {
	for _, tc := range []struct{ a, b, da, db string }{
		{`{"amount":12.5}`, `{"amount":120}`, "12.5", "120"},
		{`{"amount":150}`, `{"amount":100}`, "150", "100"},
		{`{"amount":12.5}`, `{"amount":12.75}`, "12.5", "12.75"},
		{`{"note":"order 1001 shipped"}`, `{"note":"order 1002 shipped"}`, "1001", "1002"},
		{`{"note":"v1.2.3"}`, `{"note":"v1.2.4"}`, "1.2.3", "1.2.4"},
		{`{"to":"ann@x.org"}`, `{"to":"bob@x.org"}`, "ann", "bob"},
		{`{"n":"1,000 rows"}`, `{"n":"1,500 rows"}`, "1,000", "1,500"},
		{`{"n":"costs 12.50."}`, `{"n":"costs 12.80."}`, "12.50", "12.80"},
		{`{"n":-40}`, `{"n":40}`, "-40", "40"},
		{`{"n":40}`, `{"n":-40}`, "40", "-40"},
		{`{"n":"a, b"}`, `{"n":"a, c"}`, "b", "c"},
	} {
		a, _ := Canonical([]byte(tc.a))
		b, _ := Canonical([]byte(tc.b))
		var got []string
		for _, l := range Lines(a, b) {
			if l.Op != Same {
				got = append(got, l.Text[l.Span[0]:l.Span[1]])
			}
		}
		if len(got) != 2 || got[0] != tc.da || got[1] != tc.db {
			t.Errorf("%s -> %s: marked %q, want %q, %q", tc.a, tc.b, got, tc.da, tc.db)
		}
	}
}
