package langgraph

import (
	"context"
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
