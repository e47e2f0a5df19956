package backendtest_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/backendtest"
	"github.com/hitl-sh/hitl/client/fake"
)

// Each fault mode answers as documented, against a handler that records
// what reached it: the suite's lost-answer and dropped-write checks are only
// as good as these.
func TestFaults(t *testing.T) {
	var mu sync.Mutex
	var reached []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reached = append(reached, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}`))
	})
	faults := &backendtest.Faults{}
	ts := httptest.NewServer(faults.Wrap(h))
	defer ts.Close()
	// A new connection for every request: an answer never comes from a
	// connection an earlier fault broke.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

	tests := []struct {
		mode, method, path string
		reaches            bool   // the handler saw the request
		answer             string // "" for a connection closed without an answer
		status             int
	}{
		{"", "GET", "/threads/t1", true, `{"ok":true}`, 200},
		{"", "POST", "/threads/t1/runs", true, `{"ok":true}`, 200},
		{"500", "GET", "/threads/t1", false, "internal error: database is locked\n", 500},
		{"500", "POST", "/threads/t1/runs", false, "internal error: database is locked\n", 500},
		{"html", "GET", "/threads/t1", false, "<html><body>Bad gateway</body></html>", 200},
		{"lose-answer", "POST", "/threads/t1/runs", true, "", 0},
		{"lose-answer", "GET", "/threads/t1", true, `{"ok":true}`, 200},
		{"lose-answer", "POST", "/threads/search", true, `{"ok":true}`, 200}, // a read, by POST
		{"drop-write", "POST", "/threads/t1/runs", false, "", 0},
		{"drop-write", "POST", "/threads/t1/history", true, `{"ok":true}`, 200}, // a read, by POST
		{"drop-write", "GET", "/threads/t1", true, `{"ok":true}`, 200},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %s %s", cmp.Or(tt.mode, "none"), tt.method, tt.path), func(t *testing.T) {
			faults.Set(tt.mode)
			defer faults.Set("")
			mu.Lock()
			reached = nil
			mu.Unlock()
			req, _ := http.NewRequest(tt.method, ts.URL+tt.path, strings.NewReader(`{}`))
			resp, err := hc.Do(req)
			mu.Lock()
			got := len(reached) == 1
			mu.Unlock()
			if got != tt.reaches {
				t.Errorf("reached the handler: %v, want %v", got, tt.reaches)
			}
			if tt.answer == "" {
				if err == nil {
					resp.Body.Close()
					t.Fatalf("answered HTTP %d; want the connection closed without an answer", resp.StatusCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || string(body) != tt.answer {
				t.Fatalf("HTTP %d %q, want %d %q", resp.StatusCode, body, tt.status, tt.answer)
			}
			if tt.mode == "html" && resp.Header.Get("Content-Type") != "text/html" {
				t.Errorf("Content-Type %q", resp.Header.Get("Content-Type"))
			}
		})
	}
}

// The in-memory fake that the decide and tui tests stand on passes the
// suite every backend passes (all but the HTTP faults, which it has not).
func TestSuiteOnTheFake(t *testing.T) {
	fb := fake.New()
	n := 0
	backendtest.Run(t, backendtest.Fixture{
		Backend: fb,
		Other:   fb, // a second reviewer of the same server
		Create: func(*testing.T) string {
			n++
			thread := fmt.Sprintf("thread-%d", n)
			raw := json.RawMessage(`"Which region should the replica go to?"`)
			fb.Add(client.Interrupt{ID: fmt.Sprintf("%032x", n), ThreadID: thread, GraphID: "asker",
				Payload: client.Parse(raw), Raw: raw, Server: fb.Server()})
			return thread
		},
		Decide: func(client.Interrupt) []client.Decision {
			return []client.Decision{{Type: client.Respond, Message: "eu-west-1"}}
		},
		Reject: func(client.Interrupt) []client.Decision {
			return []client.Decision{{Type: client.Respond, Message: "us-east-1"}}
		},
		Verify: func(t *testing.T, it client.Interrupt) {
			if r, ok := fb.SentValue(it.ID); !ok || string(r.Value) != `"eu-west-1"` {
				t.Fatalf("sent %s (%v)", r.Value, ok)
			}
		},
		ResolveElsewhere: func(_ *testing.T, it client.Interrupt) {
			fb.AnswerElsewhere(it.ID, "someone else", client.Resume{Value: json.RawMessage(`"ap-south-1"`)})
		},
	})
}
