package langgraph

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/demo"
)

// A thread whose state the server cannot give is one visible item; every
// other interrupt is listed as usual.
func TestOneUnreadableThreadHidesNothingElse(t *testing.T) {
	t.Parallel()
	srv := demo.New()
	srv.RunDelay = 0
	bad, _ := srv.Spawn("release", nil)  // a breakpoint: its state must be read
	good, _ := srv.Spawn("release", nil) // another one
	srv.Spawn("support", map[string]any{"messages": []any{map[string]any{"role": "user", "content": "email"}}})
	broken := map[string]bool{bad: true}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for id := range broken {
			if strings.HasSuffix(r.URL.Path, "/threads/"+id+"/state") {
				http.Error(w, "internal error: checkpoint store unavailable", http.StatusInternalServerError)
				return
			}
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	defer ts.Close()
	b, err := New(Options{Options: transport.Options{URL: ts.URL, ReadRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	its, err := b.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]client.Schema{}
	for _, it := range its {
		seen[it.ThreadID] = it.Schema
		if it.ThreadID == bad && !strings.Contains(it.Title, "checkpoint store unavailable") {
			t.Errorf("the unreadable item does not say why: %q", it.Title)
		}
	}
	if seen[bad] != client.SchemaUnreadable || seen[good] != client.SchemaBreakpoint || len(its) != 3 {
		t.Fatalf("listed %v", seen)
	}
}

// The failed runs are read one thread at a time too: a thread nested past
// encoding/json's limit is one failure that says it cannot be read, and
// the others are listed with their error and what they still hold.
func TestOnePoisonedFailedThreadHidesNothingElse(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/threads/search":
			fmt.Fprintf(w, `[{"thread_id":"poison","status":"error","metadata":{"x":%s}},`+
				`{"thread_id":"f1","status":"error","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}]`, deep)
		case r.URL.Path == "/threads/f1/state":
			fmt.Fprint(w, `{"next":["ask"],"checkpoint":{"checkpoint_id":"c1"},"tasks":[{"id":"t1","name":"ask","error":"boom",`+
				`"interrupts":[{"id":"i1","value":{"question":"again?"}}]}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	b, err := New(Options{Options: transport.Options{URL: ts.URL, ReadRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	fs, total, err := b.Failures(context.Background(), 10)
	if err != nil || total != 2 || len(fs) != 2 {
		t.Fatalf("failures: %v, %d of %d: %+v", err, len(fs), total, fs)
	}
	if fs[0].ThreadID != "poison" || !strings.Contains(fs[0].Error, "a thread poison that cannot be read (metadata:") || len(fs[0].Interrupts) != 0 {
		t.Errorf("the poisoned thread: %+v", fs[0])
	}
	if fs[1].ThreadID != "f1" || fs[1].Error != "boom" || len(fs[1].Interrupts) != 1 || fs[1].Interrupts[0].ID != "i1" || !fs[1].Interrupts[0].Retry {
		t.Errorf("the thread beside it: %+v", fs[1])
	}
}
