package langgraph

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/transport"
)

func TestHashMatchesXXH3(t *testing.T) {
	t.Parallel()
	// XXH3-128 of the empty input, from the xxHash reference.
	if got := hash128(""); got != "99aa06d3014798d86001c324468d497f" {
		t.Fatalf("hash128(\"\") = %s", got)
	}
	w := wireInterrupt{NS: []string{"agent:1", "node:2"}}
	if interruptID(w, "t", "task", 0) != hash128("agent:1|node:2") {
		t.Fatal("old-format id is not the hash of the joined namespace")
	}
	first, again, other := interruptID(wireInterrupt{}, "t", "task", 0), interruptID(wireInterrupt{}, "t", "task", 0), interruptID(wireInterrupt{}, "t", "task", 1)
	if first != again || first == other {
		t.Fatal("derived ids are not stable and distinct")
	}
}

func TestTaskOrderIsKept(t *testing.T) {
	t.Parallel()
	var th thread
	err := json.Unmarshal([]byte(`{"thread_id":"t","status":"interrupted","interrupts":{"z":[{"id":"1","value":"a"}],"a":[],"m":[{"id":"2","value":"b"},{"value":"c","ns":["x"]}]}}`), &th)
	if err != nil {
		t.Fatal(err)
	}
	its := th.interrupts("s", nil)
	if len(its) != 3 || its[0].ID != "1" || its[1].ID != "2" || its[2].ID != hash128("x") {
		t.Fatalf("%+v", its)
	}
}

// fakeServer serves the search answer captured from the real server, and
// records what hitl sends.
func fakeServer(t *testing.T, handler http.HandlerFunc) *Backend {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	b, err := New(Options{Options: transport.Options{URL: srv.URL, APIKey: "secret-key", ReadRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPendingFromCapturedSearch(t *testing.T) {
	t.Parallel()
	search, err := os.ReadFile("testdata/search.json")
	if err != nil {
		t.Fatal(err)
	}
	var gotBody map[string]any
	var gotKey string
	b := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/threads/search":
			var body map[string]any
			json.NewDecoder(r.Body).Decode(&body)
			if body["status"] == "busy" {
				w.Write([]byte("[]"))
				return
			}
			gotBody = body
			gotKey = r.Header.Get("X-Api-Key")
			w.Write(search)
		case strings.HasSuffix(r.URL.Path, "/state"):
			w.Write([]byte(`{"next":["act"],"tasks":[{"id":"x","name":"act","interrupts":[]}],"checkpoint":{"checkpoint_id":"c1"}}`))
		default:
			http.NotFound(w, r)
		}
	})
	its, err := b.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if gotKey != "secret-key" || gotBody["status"] != "interrupted" || gotBody["select"] == nil {
		t.Fatalf("request: key %q body %v", gotKey, gotBody)
	}
	schemas := map[client.Schema]int{}
	for _, it := range its {
		schemas[it.Schema]++
		if it.ThreadID == "" || it.GraphID == "" || it.ID == "" {
			t.Errorf("incomplete interrupt %+v", it)
		}
	}
	for _, s := range []client.Schema{client.SchemaMiddleware, client.SchemaAgentInbox, client.SchemaQuestions, client.SchemaPrompt, client.SchemaRaw, client.SchemaBreakpoint} {
		if schemas[s] == 0 {
			t.Errorf("no %s interrupt in the captured search (%v)", s, schemas)
		}
	}
}

func TestErrorsSayWhatToDo(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status int
		body   string
		want   string
	}{
		{401, `{"detail":"bad key"}`, "refused the credentials (HTTP 401): set an API key"},
		{404, `404 page not found`, `(HTTP 404): 404 page not found; POST /threads/search is on every LangGraph server: is --url`},
		{500, `<html>oops</html>`, "answered HTTP 500: a web page, not the API's JSON (is --url the server's API?): oops"},
		{200, `<html>not json</html>`, "is --url pointing at the right server?"},
	} {
		b := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tt.status)
			w.Write([]byte(tt.body))
		})
		_, err := b.Pending(context.Background())
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "secret-key") {
			t.Errorf("HTTP %d: %v, want %q", tt.status, err, tt.want)
		}
	}
	b, _ := New(Options{Options: transport.Options{URL: "http://user:pw@127.0.0.1:1", ReadRetries: -1}})
	_, err := b.Pending(context.Background())
	if err == nil || !strings.Contains(err.Error(), "refused the connection: is the server (langgraph dev, or langgraphjs dev) running") || strings.Contains(err.Error(), "pw") {
		t.Errorf("refused: %v", err)
	}
}

func TestStandingSaysAnsweredWhenTheThreadMovedOn(t *testing.T) {
	t.Parallel()
	b := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/threads/search":
			w.Write([]byte(`[{"thread_id":"t1","status":"idle","interrupts":{}}]`))
		case "/threads/t1/runs":
			w.Write([]byte(`[{"run_id":"r1","status":"success","created_at":"2026-11-22T03:00:00Z","metadata":{"hitl_reviewer":"bob"},"kwargs":{"command":{"resume":{"abc":{"decisions":[{"type":"reject"}]}}}}}]`))
		case "/info": // what the server is, asked once
			http.NotFound(w, r)
		default:
			t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
		}
	})
	st, err := b.Standing(context.Background(), []client.Interrupt{{ID: "abc", ThreadID: "t1", GraphID: "agent"}})
	if err != nil || st[0].Presence != client.Answered || st[0].By == nil || st[0].By.Reviewer != "bob" || st[0].By.RunID != "r1" {
		t.Fatalf("%+v %v", st, err)
	}
}

func TestResumeBusyIsNotRetried(t *testing.T) {
	t.Parallel()
	posts := 0
	b := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		posts++
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		meta, _ := body["metadata"].(map[string]any)
		if body["multitask_strategy"] != "reject" || body["assistant_id"] != "agent" || meta["hitl_decision_id"] != "d1" || meta["hitl_reviewer"] != "alice" {
			t.Errorf("body %v", body)
		}
		w.WriteHeader(http.StatusUnprocessableEntity)
		w.Write([]byte(`{"message":"Thread is already running a task"}`))
	})
	s := &client.Submission{DecisionID: "d1", Reviewer: "alice", ThreadID: "t1",
		Items: []client.Item{{Interrupt: client.Interrupt{ID: "abc", ThreadID: "t1", GraphID: "agent"}, Resume: client.Resume{Value: json.RawMessage(`"x"`)}}}}
	_, err := b.Resume(context.Background(), s)
	if err != client.ErrBusy || posts != 1 {
		t.Fatalf("err %v after %d posts", err, posts)
	}
}

// A 422 that is not "already running" is the server refusing a malformed
// request: certainly not taken, and not "busy".
func TestResumeRefusedIsNotBusy(t *testing.T) {
	t.Parallel()
	b := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnprocessableEntity)
		w.Write([]byte(`{"message":"command.resume: expected object"}`))
	})
	s := &client.Submission{DecisionID: "d1", ThreadID: "t1",
		Items: []client.Item{{Interrupt: client.Interrupt{ID: "abc", ThreadID: "t1", GraphID: "agent"}, Resume: client.Resume{Value: json.RawMessage(`"x"`)}}}}
	_, err := b.Resume(context.Background(), s)
	if err == nil || errors.Is(err, client.ErrBusy) || errors.Is(err, client.ErrMaybeSent) || !strings.Contains(err.Error(), "expected object") {
		t.Fatalf("err %v", err)
	}
}

// The oldest run that names an interrupt took it; failed runs may not have.
func TestWinnerIsTheOldestRunNamingTheInterrupt(t *testing.T) {
	t.Parallel()
	var runs []run
	json.Unmarshal([]byte(`[
		{"run_id":"a","status":"error","created_at":"2026-11-22T03:00:00Z","kwargs":{"command":{"resume":{"x":1}}}},
		{"run_id":"b","status":"success","created_at":"2026-11-22T03:00:01Z","kwargs":{"command":{"resume":{"y":1}}}},
		{"run_id":"c","status":"success","created_at":"2026-11-22T03:00:02Z","kwargs":{"command":{"resume":{"x":2}}}},
		{"run_id":"d","status":"pending","created_at":"2026-11-22T03:00:03Z","kwargs":{"command":{"resume":{"x":3}}}}]`), &runs)
	if w := winnerOf(runs, "x", "d"); w == nil || w.RunID != "c" {
		t.Fatalf("winner for d: %+v", w)
	}
	if w := winnerOf(runs, "x", "a"); w == nil || w.RunID != "a" {
		t.Fatalf("a failed run of mine is still mine: %+v", w)
	}
	if w := winnerOf(runs, "z", ""); w != nil {
		t.Fatalf("nobody resumed z: %+v", w)
	}
}

func TestPausedFindsTheInterruptInLongLines(t *testing.T) {
	t.Parallel()
	value := `{"__interrupt__":[{"id":"x","value":"` + strings.Repeat("a", 100) + `"}]}`
	for _, size := range []int{16, 20, 33, 64, 4096} {
		for _, stream := range []string{
			"event: metadata\ndata: {}\n\nevent: values\ndata: " + value + "\n\n",
			"event: values\ndata: " + strings.Repeat("b", size-7) + value + "\n\n",
		} {
			woken := 0
			paused(bufio.NewReaderSize(strings.NewReader(stream), size), func() { woken++ })
			if woken != 1 {
				t.Errorf("buffer %d: woken %d times", size, woken)
			}
		}
	}
	woken := 0
	paused(bufio.NewReaderSize(strings.NewReader("event: values\ndata: {\"a\":1}\n\nevent: error\ndata: {}\n\n"), 16), func() { woken++ })
	if woken != 1 {
		t.Errorf("error event: woken %d times", woken)
	}
}

// A failed run's error as the server keeps it in the state (a JSON string)
// and as a join gives it: a ZodError's issues one a line, or on one line.
func TestFailedRunErrorText(t *testing.T) {
	t.Parallel()
	issues := `[{"code":"invalid_enum_value","path":["framework"],"message":"Invalid enum value"},{"code":"too_big","path":["owner","age"],"message":"Number must be less than or equal to 100"}]`
	inner, _ := json.Marshal(map[string]string{"message": issues, "name": "ZodError"})
	state, _ := json.Marshal(string(inner))
	if got := taskError(state); got != "ZodError: framework: Invalid enum value\nowner.age: Number must be less than or equal to 100" {
		t.Fatalf("taskError: %q", got)
	}
	plain, _ := json.Marshal(`{"message":"Unexpected human decision","name":"Error"}`)
	if got := taskError(plain); got != "Unexpected human decision" {
		t.Fatalf("taskError: %q", got)
	}
	for in, want := range map[string]string{`null`: "", `"just text"`: "just text", `{"odd":1}`: `{"odd":1}`} {
		if got := taskError(json.RawMessage(in)); got != want {
			t.Fatalf("taskError(%s) = %q", in, got)
		}
	}
	// A join says it {"error": "Error", "message": "{\"error\":\"ZodError\",\"message\":…}"} (observed).
	innerJoin, _ := json.Marshal(map[string]string{"error": "ZodError", "message": issues})
	joined, _ := json.Marshal(map[string]string{"error": "Error", "message": string(innerJoin)})
	if got := runError(joined, "error"); got != "ZodError: framework: Invalid enum value; owner.age: Number must be less than or equal to 100" {
		t.Fatalf("runError: %q", got)
	}
}

// The Python server's thread error, as it sends it (langgraph-api 0.16.7,
// a Pydantic response schema refusing an answer): one issue a line.
func TestThreadErrorPydantic(t *testing.T) {
	raw := json.RawMessage(`{"error":"ValidationError","message":"2 validation errors for Choice\nframework\n  Input should be 'react', 'vue' or 'svelte' [type=literal_error, input_value='angular', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.14/v/literal_error\nbudget\n  Input should be less than or equal to 100 [type=less_than_equal, input_value=500, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.14/v/less_than_equal"}`)
	want := "ValidationError: framework: Input should be 'react', 'vue' or 'svelte'\nbudget: Input should be less than or equal to 100"
	if got := threadError(raw); got != want {
		t.Fatalf("got %q", got)
	}
	for raw, want := range map[string]string{
		`null`: "", `{}`: "", `{"error":"ValueError","message":"boom"}`: "ValueError: boom",
		`{"message":"1 validation error for X\nnot an issue list"}`: "1 validation error for X\nnot an issue list",
	} {
		if got := threadError(json.RawMessage(raw)); got != want {
			t.Errorf("%s: got %q want %q", raw, got, want)
		}
	}
}
