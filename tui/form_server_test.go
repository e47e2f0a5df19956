package tui

// The form, driven key by key, against LangGraph servers: the embedded
// demo server always, and the real servers scripts/test starts
// (internal/realserver), whose graph "form" (testserver/graphs/form.js, a
// Zod schema; testserver/python/graphs/form.py, a Pydantic model) records
// the answer it received.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/demo"
	"github.com/hitl-sh/hitl/internal/realserver"
)

func TestFormOnLangGraphServers(t *testing.T) {
	srv := demo.New()
	srv.RunDelay = 0
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	// budget: what the graph logs for the whole number typed (a Pydantic
	// model hands the Python graph a float).
	type target struct{ name, url, graph, budget string }
	targets := []target{{"embedded", srv.URL(), "survey", "42"}}
	for _, rs := range realserver.All(t) {
		budget := "42"
		if rs.Kind == realserver.Python {
			budget = "42.0"
		}
		targets = append(targets, target{rs.Name(), rs.URL, "form", budget})
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			call := func(method, path string, body any) []byte {
				t.Helper()
				var rd io.Reader
				if body != nil {
					b, _ := json.Marshal(body)
					rd = bytes.NewReader(b)
				}
				req, _ := http.NewRequest(method, tg.url+path, rd)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return b
			}
			var th struct {
				ThreadID string `json:"thread_id"`
			}
			json.Unmarshal(call("POST", "/threads", map[string]any{}), &th)
			call("POST", "/threads/"+th.ThreadID+"/runs/wait", map[string]any{"assistant_id": tg.graph, "input": map[string]any{"topic": "zod"}})
			runs := func() string { return string(call("GET", "/threads/"+th.ThreadID+"/runs?limit=100", nil)) }

			b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: tg.url}})
			if err != nil {
				t.Fatal(err)
			}
			its, err := b.Pending(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			id := ""
			for _, it := range its {
				if it.ThreadID == th.ThreadID {
					id = it.ID
				}
			}
			if id == "" {
				t.Fatalf("no interrupt on %s", th.ThreadID)
			}
			h := newHarnessOn(t, 80, 24, nil, b)
			h.m.items.selected = id
			h.now = h.now.Add(GracePeriod * 2)
			h.keys("enter", "f", "3", "tab")
			h.msg(space())
			h.keys("tab")
			h.typeText("150")
			h.keys("ctrl+s")
			h.wantScreen("(•) 3 svelte", "[x] true", "✗ must be at most 100 (got 150)")
			before := runs()
			for range 3 {
				h.msg(backspace())
			}
			h.typeText("42")
			h.keys("tab")
			h.typeText("Lunch & <tests>")
			h.keys("ctrl+s")
			h.wantScreen("Send this?")
			if runs() != before {
				t.Fatal("something reached the server before the confirm")
			}
			h.keys("y")
			h.wantScreen("Sent respond for " + id[:8])
			want := `{"framework":"svelte","tests":true,"budget":` + tg.budget + `,"notes":"Lunch & <tests>"}`
			got := runs()
			if tg.name != "embedded" {
				var st struct {
					Values struct {
						Log json.RawMessage `json:"log"`
					} `json:"values"`
				}
				json.Unmarshal(call("GET", "/threads/"+th.ThreadID+"/state", nil), &st)
				got = string(st.Values.Log)
			}
			var compact bytes.Buffer
			json.Compact(&compact, []byte(got))
			// The same JSON whether <, > and & travel escaped or not.
			got = strings.NewReplacer(`\u0026`, "&", `\u003c`, "<", `\u003e`, ">").Replace(compact.String())
			if !strings.Contains(got, want) {
				t.Fatalf("the graph got %s\nwant %s", got, want)
			}
		})
	}
}

// A tool call's arguments edited in the form of its args_schema, on the
// embedded server and the real one: what the tool ran with is what the
// form said, and a value out of bounds never left hitl.
func TestArgsFormOnLangGraphServers(t *testing.T) {
	srv := demo.New()
	srv.RunDelay = 0
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	// The demo's schema describes the amount only, the real graph's all
	// three; both forms show the order first (tabs: how far the amount
	// is), the demo's from its arguments.
	type target struct {
		name, url, graph string
		tabs             int
		ran              string // what the tool ran with: keys the form does not show kept, in place
	}
	targets := []target{{"embedded", srv.URL(), "support", 1,
		`ran issue_refund {"order_id":"A-1001","amount":42,"currency":"EUR","reason":"damaged in transit"}`}}
	// Not on the Python server: its middleware sends no args_schema in
	// batched mode (cmd/hitl TestRealMiddlewareArgsSchema shows it).
	for _, rs := range realserver.All(t) {
		if rs.Kind == realserver.JS {
			targets = append(targets, target{rs.Name(), rs.URL, "agent", 1,
				`ran issue_refund {"order_id":"A-1001","amount":42,"currency":"EUR"}`})
		}
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			call := func(method, path string, body any) []byte {
				t.Helper()
				var rd io.Reader
				if body != nil {
					b, _ := json.Marshal(body)
					rd = bytes.NewReader(b)
				}
				req, _ := http.NewRequest(method, tg.url+path, rd)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return b
			}
			var th struct {
				ThreadID string `json:"thread_id"`
			}
			json.Unmarshal(call("POST", "/threads", map[string]any{}), &th)
			call("POST", "/threads/"+th.ThreadID+"/runs/wait", map[string]any{"assistant_id": tg.graph,
				"input": map[string]any{"messages": []any{map[string]any{"role": "user", "content": "refund"}}}})
			runs := func() string { return string(call("GET", "/threads/"+th.ThreadID+"/runs?limit=100", nil)) }

			b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: tg.url}})
			if err != nil {
				t.Fatal(err)
			}
			its, err := b.Pending(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			id := ""
			for _, it := range its {
				if it.ThreadID == th.ThreadID {
					id = it.ID
				}
			}
			if id == "" {
				t.Fatalf("no interrupt on %s", th.ThreadID)
			}
			h := newHarnessOn(t, 80, 24, nil, b)
			h.m.items.selected = id
			h.now = h.now.Add(GracePeriod * 2)
			before := runs()
			h.keys("enter", "e")
			h.wantScreen("Arguments of issue_refund", "amount *  number", "at most 100")
			for range tg.tabs {
				h.keys("tab")
			}
			h.keys("ctrl+u")
			h.typeText("150")
			h.keys("ctrl+s")
			h.wantScreen("✗ must be at most 100 (got 150)")
			h.keys("ctrl+u")
			h.typeText("42")
			h.keys("ctrl+s")
			h.wantScreen("Send this?", `+   "amount": [42]`)
			if runs() != before {
				t.Fatal("something reached the server before the confirm")
			}
			h.keys("y")
			h.wantScreen("Sent edit for " + id[:8])
			var st struct {
				Values struct {
					Messages []struct {
						Content any `json:"content"`
					} `json:"messages"`
				} `json:"values"`
			}
			json.Unmarshal(call("GET", "/threads/"+th.ThreadID+"/state", nil), &st)
			want := tg.ran
			var ran []string
			for _, msg := range st.Values.Messages {
				if s, ok := msg.Content.(string); ok && strings.HasPrefix(s, "ran issue_refund") {
					ran = append(ran, s)
				}
			}
			if len(ran) != 1 || ran[0] != want {
				t.Fatalf("the tool ran %q\nwant %q", ran, want)
			}
		})
	}
}
