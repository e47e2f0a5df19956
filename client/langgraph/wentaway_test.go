package langgraph_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
)

// A server that stops while hitl follows the run it started (a replica
// killed) is named as gone, not as "something else listening there".
func TestFollowNamesAServerThatWentAway(t *testing.T) {
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/join") {
			ts.Listener.Close() // nothing answers at this address any more
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		http.NotFound(w, r)
	}))
	defer ts.Close()
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: ts.URL, ReadRetries: -1}, Follow: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s := &client.Submission{DecisionID: "d1", ThreadID: "t1"}
	out := b.Follow(context.Background(), s, client.Receipt{Acknowledged: true, RunID: "r1"})
	if out.Status != client.Running || !strings.Contains(out.Error, "went away while hitl followed run r1") || strings.Contains(out.Error, "listening") {
		t.Fatalf("outcome %+v", out)
	}
}
