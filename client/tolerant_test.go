package client_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// A list is read one element at a time: an element nested past
// encoding/json's limit, or of the wrong type, is the item reader's to
// mark, and the elements beside it are read as usual.
func TestListReadsEachElementOnItsOwn(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000)
	body := `[{"id":"a"}, ` + deep + `, {"id":7}, {"id":"b"}]`
	type item struct{ id, problem string }
	got, err := client.List([]byte(body), func(e json.RawMessage) (item, bool) {
		var it item
		p := client.Fields(e, func(key string, v json.RawMessage) error {
			if key == "id" {
				return client.Into(v, &it.id)
			}
			return nil
		})
		it.problem = p.String()
		return it, it.id != "" || len(p) > 0
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0].id != "a" || got[3].id != "b" || got[0].problem != "" || got[3].problem != "" {
		t.Fatalf("the readable elements: %+v", got)
	}
	if !strings.HasPrefix(got[1].problem, "expected a JSON object") {
		t.Errorf("the deep element: %q", got[1].problem)
	}
	if got[2].problem != "id: cannot unmarshal number into Go value of type string" {
		t.Errorf("a member of the wrong type is named, without encoding/json's prefix: %q", got[2].problem)
	}
	// ok false leaves an element out.
	some, _ := client.List([]byte(`[1,2,3,4]`), func(e json.RawMessage) (string, bool) { return string(e), string(e) != "3" })
	if strings.Join(some, ",") != "1,2,4" {
		t.Errorf("left out: %v", some)
	}
	for _, notList := range []string{`{"a":1}`, `[1,2`, ``, `7`} {
		if _, err := client.List([]byte(notList), func(e json.RawMessage) (int, bool) { return 0, true }); err == nil {
			t.Errorf("%q read as a list", notList)
		}
	}
}

// Fields reports every member it could not read, not only the first, and
// an item that is not an object as such.
func TestFieldsSaysWhatCannotBeRead(t *testing.T) {
	t.Parallel()
	var a, b string
	p := client.Fields([]byte(`{"a":1,"b":"ok","c":{}}`), func(key string, v json.RawMessage) error {
		switch key {
		case "a":
			return client.Into(v, &a)
		case "b":
			return client.Into(v, &b)
		case "c":
			return client.Into(v, &a)
		}
		return nil
	})
	if len(p) != 2 || !strings.HasPrefix(p[0], "a: ") || !strings.HasPrefix(p[1], "c: ") || b != "ok" {
		t.Fatalf("problems %q, b %q", p, b)
	}
	if p.Err() == nil || p.Err().Error() != p.String() || !strings.Contains(p.String(), "; c: ") {
		t.Errorf("as one error: %v", p.Err())
	}
	if (client.Problems{}).Err() != nil {
		t.Error("no problems is no error")
	}
	if p := client.Fields([]byte(`"text"`), func(string, json.RawMessage) error { return nil }); len(p) != 1 {
		t.Errorf("not an object: %q", p)
	}
	if got := client.CannotRead("a request", client.Problems{"x: bad", "y: worse"}); got != "a request that cannot be read (x: bad; y: worse)" {
		t.Errorf("CannotRead: %q", got)
	}
}

// An item without an id of its own is named by its bytes: the same name at
// every read, another for other bytes, SHA-256 (see UnreadableID).
func TestUnreadableIDIsStableAndDistinct(t *testing.T) {
	t.Parallel()
	a, b := []byte(`{"thread_id":7}`), []byte(`{"thread_id":8}`)
	sum := sha256.Sum256(a)
	if got := client.UnreadableID(a); got != "unreadable-"+hex.EncodeToString(sum[:8]) || got != client.UnreadableID(append([]byte(nil), a...)) {
		t.Fatalf("UnreadableID(%s) = %s", a, got)
	}
	if client.UnreadableID(a) == client.UnreadableID(b) {
		t.Error("two items, one name")
	}
}
