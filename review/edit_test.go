package review

import (
	"testing"
)

// --set changes one key and keeps the others in their order; a value that
// is not JSON is text.
func TestSetKeysKeepsTheOthers(t *testing.T) {
	sets, err := ParseSets([]string{"to=bob@example.com", "n=3", "tags=[1,2]", "note= "})
	if err != nil {
		t.Fatal(err)
	}
	got, err := SetKeys([]byte(`{"to":"alice","subject":"hi","n":1}`), sets)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"to":"bob@example.com","subject":"hi","n":3,"tags":[1,2],"note":" "}`; string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if _, err := ParseSets([]string{"=x"}); kindOf(err) != Usage {
		t.Fatalf("no key: %v", err)
	}
	if _, err := SetKeys([]byte(`[1]`), sets); kindOf(err) != Usage {
		t.Fatalf("arguments that are no object: %v", err)
	}
}
