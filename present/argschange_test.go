package present

import (
	"bytes"
	"strings"
	"testing"
)

// An edit's change is shown with keys sorted on both sides, and a key
// dropped is said with how to keep it.
func TestArgsChangeSaysADroppedKey(t *testing.T) {
	var out bytes.Buffer
	ArgsChange(&out, "send_email", "abcd1234ef", []byte(`{"to":"a","subject":"s"}`), []byte(`{"subject":"s","to":"b"}`))
	got := out.String()
	for _, want := range []string{"edit of send_email (abcd1234)", `-   "to": "a"`, `+   "to": "b"`, `    "subject": "s"`} {
		if !strings.Contains(got, want) {
			t.Fatalf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "dropped") {
		t.Fatalf("a reordered key called dropped:\n%s", got)
	}
	out.Reset()
	ArgsChange(&out, "send_email", "abcd1234ef", []byte(`{"to":"a","cc":"c"}`), []byte(`{"to":"a"}`))
	if !strings.Contains(out.String(), "note: keys of the proposed arguments are dropped") {
		t.Fatalf("a dropped key not said:\n%s", out.String())
	}
}
