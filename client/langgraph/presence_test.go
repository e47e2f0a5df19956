package langgraph_test

// Claims in thread metadata and threads whose run failed, on both servers:
// what PATCH /threads/{id} does with metadata, and where a failed run's
// error and interrupt can be read.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/backendtest"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/internal/realserver"
	"github.com/hitl-sh/hitl/present"
)

// threadMeta reads a thread's metadata and updated_at as the server has them.
func threadMeta(t *testing.T, tg target, thread string) (map[string]json.RawMessage, time.Time) {
	t.Helper()
	_, body := call(t, "GET", tg.url+"/threads/"+thread, nil)
	var th struct {
		Metadata  map[string]json.RawMessage `json:"metadata"`
		UpdatedAt time.Time                  `json:"updated_at"`
	}
	if err := json.Unmarshal(body, &th); err != nil {
		t.Fatalf("thread: %v %s", err, body)
	}
	for k, v := range th.Metadata {
		var c bytes.Buffer
		json.Compact(&c, v)
		th.Metadata[k] = c.Bytes()
	}
	return th.Metadata, th.UpdatedAt
}

func TestConformPatchMergesMetadataKeys(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		thread := start(t, tg, tg.single, anyMap(meta))
		_, before := threadMeta(t, tg, thread)
		time.Sleep(20 * time.Millisecond)
		for _, patch := range []map[string]any{
			{"k1": map[string]any{"a": 1, "b": 2}},
			{"k2": "two"},
			{"k1": map[string]any{"c": 3}}, // replaced whole, not merged
			{"k2": nil},                    // stays, as null
		} {
			if code, body := call(t, "PATCH", tg.url+"/threads/"+thread, map[string]any{"metadata": patch}); code != 200 {
				t.Fatalf("PATCH: %d %s", code, body)
			}
		}
		m, after := threadMeta(t, tg, thread)
		if string(m["k1"]) != `{"c":3}` || string(m["k2"]) != "null" || !strings.Contains(string(m["suite"]), meta["suite"]) || m["graph_id"] == nil {
			t.Fatalf("metadata: %s", m)
		}
		if !after.After(before) {
			t.Fatalf("updated_at did not move: %s then %s", before, after)
		}
		if code, _ := call(t, "PATCH", tg.url+"/threads/"+thread, map[string]any{"metadata": 5}); code < 400 || code >= 500 {
			t.Fatalf("metadata 5: HTTP %d", code)
		}
		if code, _ := call(t, "PATCH", tg.url+"/threads/00000000-0000-4000-8000-000000000000", map[string]any{"metadata": map[string]any{}}); code != 404 {
			t.Fatalf("unknown thread: HTTP %d", code)
		}
	})
}

func TestConformClaims(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		start(t, tg, tg.parallel, anyMap(meta))
		b := backend(t, tg, meta, 0)
		its := pendingOf(t, b)
		if len(its) != 2 {
			t.Fatalf("pending: %+v", its)
		}
		ctx := context.Background()
		now := time.Now()
		alice := client.Claim{Reviewer: "alice", Client: "c-alice", Since: now.Add(-2 * time.Minute), Expires: now.Add(client.ClaimTTL)}
		bob := client.Claim{Reviewer: "bob", Client: "c-bob", Since: now, Expires: now.Add(client.ClaimTTL)}
		// Two reviewers, two branches of one thread: neither overwrites the other.
		if err := b.Claim(ctx, its[0], alice); err != nil {
			t.Fatal(err)
		}
		if err := b.Claim(ctx, its[1], bob); err != nil {
			t.Fatal(err)
		}
		got := map[string]client.Interrupt{}
		for _, it := range pendingOf(t, b) {
			got[it.ID] = it
		}
		a, c := got[its[0].ID], got[its[1].ID]
		if len(a.Claims) != 1 || a.Claims[0].Reviewer != "alice" || len(c.Claims) != 1 || c.Claims[0].Reviewer != "bob" {
			t.Fatalf("claims: %+v / %+v", a.Claims, c.Claims)
		}
		if others := a.Others("c-bob", time.Now()); len(others) != 1 || present.Editing(others, now) != "alice is editing (2m)" {
			t.Fatalf("others: %+v", others)
		}
		if len(a.Others("c-alice", time.Now())) != 0 {
			t.Fatal("one's own claim counted")
		}
		if len(a.Others("c-bob", now.Add(client.ClaimTTL+time.Second))) != 0 {
			t.Fatal("an expired claim counted")
		}
		// The PATCH moved updated_at; the interrupts still show when they
		// started to wait.
		if !a.UpdatedAt.Equal(its[0].UpdatedAt) {
			t.Fatalf("a claim made the interrupt look new: %s, was %s", a.UpdatedAt, its[0].UpdatedAt)
		}
		// Released: no claim, the other branch's stays, and the age too.
		if err := b.Release(ctx, its[0], alice); err != nil {
			t.Fatal(err)
		}
		got = map[string]client.Interrupt{}
		for _, it := range pendingOf(t, b) {
			got[it.ID] = it
		}
		if len(got[its[0].ID].Claims) != 0 || len(got[its[1].ID].Claims) != 1 || !got[its[0].ID].UpdatedAt.Equal(its[0].UpdatedAt) {
			t.Fatalf("after the release: %+v / %+v", got[its[0].ID], got[its[1].ID].Claims)
		}
		// Two reviewers on one interrupt: both claims stand, each sees the
		// other's, and one's release leaves the other's.
		if err := b.Claim(ctx, its[1], alice); err != nil {
			t.Fatal(err)
		}
		var both client.Interrupt
		for _, it := range pendingOf(t, b) {
			if it.ID == its[1].ID {
				both = it
			}
		}
		if o := both.Others("c-bob", time.Now()); len(o) != 1 || o[0].Reviewer != "alice" {
			t.Fatalf("bob sees %+v on the interrupt both claim", o)
		}
		if o := both.Others("c-alice", time.Now()); len(o) != 1 || o[0].Reviewer != "bob" {
			t.Fatalf("alice sees %+v on the interrupt both claim", o)
		}
		if err := b.Release(ctx, its[1], bob); err != nil {
			t.Fatal(err)
		}
		for _, it := range pendingOf(t, b) {
			if it.ID == its[1].ID && (len(it.Claims) != 1 || it.Claims[0].Reviewer != "alice") {
				t.Fatalf("after bob's release: %+v", it.Claims)
			}
		}
		// A claim on a thread that is gone (a server restarted with nothing
		// kept) is an error that says so (ErrNoThread), not a panic: the
		// TUI then drops that one claim and keeps the others.
		gone := its[0]
		gone.ThreadID = "00000000-0000-4000-8000-000000000000"
		if err := b.Claim(ctx, gone, alice); err == nil || !strings.Contains(err.Error(), "404") || !errors.Is(err, client.ErrNoThread) {
			t.Fatalf("claim on a missing thread: %v, want a 404 that is ErrNoThread", err)
		}
	})
}

// failing is, per server, a graph whose run fails on an answer that does
// not match its response schema (a Zod schema on the real server), and
// such an answer.
func failing(tg target) (graphInput, string, string) {
	if tg.name == "embedded" {
		return graphInput{"survey", map[string]any{}}, `{"framework":"angular","tests":true,"budget":500}`, "the answer does not match the response schema"
	}
	if tg.kind != realserver.JS {
		// A Pydantic model as the response schema (the Python graphs,
		// which langhost and aegra serve too): LangGraph checks the
		// answer, and the run fails with Pydantic's ValidationError.
		return graphInput{"form", map[string]any{"topic": "zod"}}, `{"framework":"angular","tests":true,"budget":500}`,
			"ValidationError: framework: Input should be 'react', 'vue' or 'svelte'\nbudget: Input should be less than or equal to 100"
	}
	return graphInput{"form", map[string]any{"topic": "zod"}}, `{"framework":"angular","tests":true,"budget":500}`, "ZodError: framework: Invalid enum value. Expected 'react' | 'vue' | 'svelte', received 'angular'\nbudget: Number must be less than or equal to 100"
}

// failRun answers interrupt id of thread with bad, which the graph
// refuses, as another client would, and checks that the run failed: its
// wait answers {"__error__": …}; aegra's answers {} (docs/servers.md), and
// its thread then says "error".
func failRun(t *testing.T, tg target, graph, thread, id, bad string) {
	t.Helper()
	code, body := call(t, "POST", tg.url+"/threads/"+thread+"/runs/wait", map[string]any{"assistant_id": graph,
		"command": map[string]any{"resume": map[string]json.RawMessage{id: json.RawMessage(bad)}}})
	if code == 200 && strings.Contains(string(body), "__error__") {
		return
	}
	if tg.kind == realserver.Aegra && code == 200 && compact(body) == "{}" {
		_, th := call(t, "GET", tg.url+"/threads/"+thread, nil)
		var st struct {
			Status string `json:"status"`
		}
		if json.Unmarshal(th, &st) == nil && st.Status == "error" {
			return
		}
		t.Fatalf("bad answer: %d %s; the thread: %.300s", code, body, th)
	}
	t.Fatalf("bad answer: %d %s", code, body)
}

func TestConformFailedRunAndAnswerAgain(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		g, bad, wantErr := failing(tg)
		if tg.kind == realserver.Aegra {
			// aegra keeps the error as the failed task's text only,
			// Pydantic's own (no exception name): docs/servers.md.
			wantErr = "Input should be 'react', 'vue' or 'svelte'"
		}
		thread := start(t, tg, g, anyMap(meta))
		b := backend(t, tg, meta, 0)
		it := pendingOf(t, b)[0]
		// langhost (langgraph-api 0.11.1 on the pg runtime) and aegra
		// keep no response_schema, neither on the thread nor in its
		// state: the answer's schema is nowhere to read, and the interrupt
		// is its value alone, answered with text or JSON (docs/servers.md).
		schema := client.SchemaForm
		if tg.kind == realserver.Langhost || tg.kind == realserver.Aegra {
			schema = client.SchemaRaw
		}
		if it.Schema != schema {
			t.Fatalf("pending: %s, want %s", it.Schema, schema)
		}
		// Another client sends an answer the graph refuses: the run fails.
		failRun(t, tg, g.graph, thread, it.ID, bad)
		if len(pendingOf(t, b)) != 0 {
			t.Fatal("a failed thread is listed as pending")
		}
		fs, total, err := b.Failures(context.Background(), 10)
		if err != nil || len(fs) != 1 || total != 1 {
			t.Fatalf("failures: %v %d %+v", err, total, fs)
		}
		f := fs[0]
		if f.ThreadID != thread || !strings.Contains(f.Error, wantErr) || len(f.Interrupts) != 1 || f.Interrupts[0].ID != it.ID || !f.Interrupts[0].Retry || f.Interrupts[0].Schema != schema {
			t.Fatalf("failure: %+v", f)
		}
		// What answering again does, as each server shows it: the dev
		// servers show the schema that refused the answer (a new one is
		// taken); langhost shows none, so the graph may keep the first;
		// aegra resumes no failed thread.
		held := f.Interrupts[0]
		if held.KeptAnswer || held.MayKeepAnswer != (tg.kind == realserver.Langhost) || held.CannotAnswerAgain != (tg.kind == realserver.Aegra) {
			t.Fatalf("answering again: kept %v, may keep %v, cannot %v", held.KeptAnswer, held.MayKeepAnswer, held.CannotAnswerAgain)
		}
		if tg.kind == realserver.Aegra {
			// Refused, and said as what it is: not a run in progress.
			res := backendtest.Send(t, b, "alice", held, client.Decision{Type: client.Respond, Value: json.RawMessage(`{"framework":"react","tests":true,"budget":5}`)})
			if res.Kind != decide.NotSent || !strings.Contains(res.Text(), "resumes only a thread that waits on an interrupt") ||
				!strings.Contains(res.Text(), "Cannot resume: thread is not in interrupted state") || strings.Contains(res.Text(), "in progress") {
				t.Fatalf("answer again on aegra: %s: %s", res.Kind, res.Text())
			}
			if fs, _, _ := b.Failures(context.Background(), 10); len(fs) != 1 || len(fs[0].Interrupts) != 1 || !fs[0].Interrupts[0].CannotAnswerAgain {
				t.Fatalf("after the refusal: %+v", fs)
			}
			return
		}
		// The earlier answer stands for a decision that does not say it
		// answers again: nothing is sent.
		res := backendtest.Send(t, b, "alice", it, client.Decision{Type: client.Respond, Value: json.RawMessage(`{"framework":"react","tests":true,"budget":5}`)})
		if res.Kind != decide.HandledElsewhere {
			t.Fatalf("a decision on a failed thread without Retry: %s", res.Text())
		}
		// Answered again: taken, the run finishes.
		res = backendtest.Send(t, b, "alice", f.Interrupts[0], client.Decision{Type: client.Respond, Value: json.RawMessage(`{"framework":"react","tests":true,"budget":5}`)})
		if res.Kind != decide.Sent || res.Run.Status != client.Finished {
			t.Fatalf("answer again: %s", res.Text())
		}
		if fs, _, _ := b.Failures(context.Background(), 10); len(fs) != 0 {
			t.Fatalf("still failed: %+v", fs)
		}
	})
}

// A node that raises after its interrupt() returned: its run fails with
// the answer taken. Every server that resumes a failed thread keeps that
// answer (a new one is not used: the task runs again with the first), and
// hitl says so only where the server could show that no answer schema
// refused it: "kept" on the dev servers, "may keep" on langhost (no
// response_schema on its wire), "cannot answer again" on aegra.
func TestConformFailedAfterTheAnswerWasTaken(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		if tg.kind == "" {
			t.Skip("the demo's graphs do not fail after an answer")
		}
		meta := tag(t)
		g := graphInput{"failing", map[string]any{"topic": "charge"}}
		thread := start(t, tg, g, anyMap(meta))
		b := backend(t, tg, meta, 0)
		it := pendingOf(t, b)[0]
		failRun(t, tg, g.graph, thread, it.ID, `"yes"`)
		fs, _, err := b.Failures(context.Background(), 10)
		if err != nil || len(fs) != 1 || len(fs[0].Interrupts) != 1 || !strings.Contains(fs[0].Error, "answer was 'yes'") {
			t.Fatalf("failures: %v %+v", err, fs)
		}
		held := fs[0].Interrupts[0]
		dev := tg.kind == realserver.JS || tg.kind == realserver.Python
		if held.KeptAnswer != dev || held.MayKeepAnswer != (tg.kind == realserver.Langhost) || held.CannotAnswerAgain != (tg.kind == realserver.Aegra) {
			t.Fatalf("answering again: kept %v, may keep %v, cannot %v", held.KeptAnswer, held.MayKeepAnswer, held.CannotAnswerAgain)
		}
		res := backendtest.Send(t, b, "alice", held, client.Decision{Type: client.Respond, Value: json.RawMessage(`"charge-offline"`)})
		if tg.kind == realserver.Aegra {
			if res.Kind != decide.NotSent || !strings.Contains(res.Text(), "resumes only a thread that waits on an interrupt") {
				t.Fatalf("answer again on aegra: %s: %s", res.Kind, res.Text())
			}
			return
		}
		// Taken, and the graph ran the task again with the first answer.
		if res.Kind != decide.Sent || res.Run.Status != client.Failed || !strings.Contains(res.Run.Error, "answer was 'yes'") {
			t.Fatalf("answer again: %s: %s", res.Kind, res.Text())
		}
	})
}

// A run fails only by changing its thread: the watcher's Activity (its
// watermark) moves when one does, and stands while nothing happens. The
// TUI reads the failed threads again only when it moved.
func TestConformActivityMovesWhenARunFails(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		g, bad, _ := failing(tg)
		thread := start(t, tg, g, anyMap(meta))
		w, ch := watchedWith(t, tg.url, meta, 50*time.Millisecond)
		<-ch // the first listing
		// activity is what Activity says once the watcher has looked again.
		activity := func() (time.Time, int) {
			t.Helper()
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if newest, n, ok := w.Activity(); ok {
					return newest, n
				}
			}
			t.Fatal("Activity never ok in 10 s")
			return time.Time{}, 0
		}
		// The first listing leaves a watermark a little behind and no
		// count; the first poll sets both.
		time.Sleep(200 * time.Millisecond)
		before, n := activity()
		time.Sleep(500 * time.Millisecond) // ten looks
		if again, m := activity(); !again.Equal(before) || m != n {
			t.Fatalf("idle: the watermark moved from %s (%d threads) to %s (%d)", before, n, again, m)
		}
		it := pendingOf(t, w)[0]
		failRun(t, tg, g.graph, thread, it.ID, bad)
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if after, _ := activity(); after.After(before) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the run failed and the watermark stands at %s", before)
			}
		}
		if fs, _, err := w.Failures(context.Background(), 10); err != nil || len(fs) != 1 || fs[0].ThreadID != thread {
			t.Fatalf("failures: %v %+v", err, fs)
		}
	})
}

// More failed threads than a page holds: the total is the server's count
// (POST /threads/count), not a guess from the page or a header (here taken
// away, as a gateway may).
func TestConformFailuresCounted(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		g, bad, _ := failing(tg)
		for range 3 {
			thread := start(t, tg, g, anyMap(meta))
			// The interrupt's id from the state's tasks: aegra lists none
			// on the thread (docs/servers.md).
			_, body := call(t, "GET", tg.url+"/threads/"+thread+"/state", nil)
			var st struct {
				Tasks []struct {
					Interrupts []struct {
						ID string `json:"id"`
					} `json:"interrupts"`
				} `json:"tasks"`
			}
			json.Unmarshal(body, &st)
			if len(st.Tasks) != 1 || len(st.Tasks[0].Interrupts) != 1 {
				t.Fatalf("the form's state: %.500s", body)
			}
			failRun(t, tg, g.graph, thread, st.Tasks[0].Interrupts[0].ID, bad)
		}
		b := backend(t, target{url: totalProxy(t, tg.url, "")}, meta, 0)
		fs, total, err := b.Failures(context.Background(), 2)
		if err != nil || len(fs) != 2 || total != 3 {
			t.Fatalf("failures by 2: %v, %d listed of %d", err, len(fs), total)
		}
		if fs, total, err := b.Failures(context.Background(), 3); err != nil || len(fs) != 3 || total != 3 {
			t.Fatalf("failures by 3: %v, %d listed of %d", err, len(fs), total)
		}
	})
}

// totalProxy forwards to target with X-Pagination-Total replaced by total
// (taken away when ""), as a gateway or a server that counts otherwise may.
func totalProxy(t *testing.T, target, total string) string {
	u, _ := url.Parse(target)
	p := httputil.NewSingleHostReverseProxy(u)
	p.ModifyResponse = func(r *http.Response) error {
		r.Header.Del("X-Pagination-Total")
		if total != "" {
			r.Header.Set("X-Pagination-Total", total)
		}
		return nil
	}
	s := httptest.NewServer(p)
	t.Cleanup(s.Close)
	return s.URL
}

// A claim on one branch is a metadata PATCH, which moves the thread's
// updated_at. The siblings keep their age: the Python server says
// state_updated_at, which the PATCH does not move; the JS server (and the
// embedded one) have no such field, but their state's created_at (the
// checkpoint's time) is not moved either.
func TestConformClaimKeepsSiblingsAge(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		start(t, tg, tg.fanout, anyMap(meta))
		b := backend(t, tg, meta, 0)
		its := pendingOf(t, b)
		if len(its) != 3 {
			t.Fatalf("pending: %+v", its)
		}
		time.Sleep(50 * time.Millisecond) // the PATCH's updated_at is later
		now := time.Now()
		if err := b.Claim(context.Background(), its[0], client.Claim{Reviewer: "alice", Client: "c-alice", Since: now, Expires: now.Add(client.ClaimTTL)}); err != nil {
			t.Fatal(err)
		}
		moved := 0
		for _, it := range pendingOf(t, b) {
			for _, was := range its[1:] {
				if it.ID == was.ID && !it.UpdatedAt.Equal(was.UpdatedAt) {
					moved++
				}
			}
			if it.ID == its[0].ID && !it.UpdatedAt.Equal(its[0].UpdatedAt) {
				t.Errorf("the claimed interrupt looks new: %s, was %s", it.UpdatedAt, its[0].UpdatedAt)
			}
		}
		if moved != 0 {
			t.Fatalf("%d of 2 siblings look new after a claim, want none", moved)
		}
	})
}
