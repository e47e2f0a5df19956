// Package demo is an embedded, in-memory server that speaks the part of the
// LangGraph Agent Server API that hitl uses, with scripted agents that keep
// producing interrupts of every shape and react to decisions like real ones.
// `hitl demo` runs it; the Go tests use it as a fast, faithful backend.
//
// Where it differs from the real server, the difference is written down in
// docs/backends.md and tested by the conformance suite in client/langgraph.
package demo

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/coord/wire"
)

// Server is the embedded LangGraph-compatible server.
type Server struct {
	mu      sync.Mutex
	threads map[string]*thread
	runs    map[string]*run
	graphs  map[string]Graph
	// RunDelay is how long a run takes before its graph step runs, so that a
	// run is visibly "running" (and a second one gets 422) as on a real server.
	RunDelay time.Duration

	listener
	spawned int
}

type thread struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	// StateAt is when the state last changed (its checkpoint's
	// created_at): a metadata PATCH (a claim) moves UpdatedAt, not this.
	StateAt    time.Time
	Metadata   map[string]any
	Status     string // idle | busy | interrupted | error
	Values     map[string]any
	Interrupts []pending
	// Answered are branches answered while siblings still wait: like the
	// real server, the thread keeps listing them (its state's tasks carry
	// their results) until the last sibling is answered.
	Answered   []pending
	Next       []string
	Checkpoint string
	// History is every checkpoint the thread's runs wrote, oldest first.
	History []checkpointRec
	graph   string
	state   any // the graph's own memory
	// Failed holds, by task, the error of a resume the graph refused: the
	// thread is then in status error, and, as on the real server, its
	// state still holds the interrupt, which a later resume may answer.
	Failed map[string]string
}

type checkpointRec struct {
	ID       string
	Parent   string
	Metadata map[string]any
}

type pending struct {
	ID     string
	TaskID string
	Value  any
	// Schema is the JSON Schema of the answer the graph expects, sent as
	// response_schema next to the value (LangGraph JS 1.7).
	Schema any
	Result json.RawMessage // for an answered branch: what it was answered
}

type run struct {
	ID        string
	ThreadID  string
	Assistant string
	Status    string // pending | running | success | error | interrupted
	Error     string
	CreatedAt time.Time
	Metadata  map[string]any
	done      chan struct{}
	kwargs    map[string]any
}

// New returns a server with the demo graphs registered.
func New() *Server {
	s := &Server{threads: map[string]*thread{}, runs: map[string]*run{}, graphs: map[string]Graph{}, RunDelay: 150 * time.Millisecond}
	for _, g := range Graphs() {
		s.graphs[g.ID()] = g
	}
	return s
}

// Start listens on addr ("127.0.0.1:0" for a free port) and serves in the
// background. URL says where.
func (s *Server) Start(addr string) error { return s.listen(addr, s.Handler()) }

// Close stops the server.
func (s *Server) Close() error { return s.close() }

// Handler serves the API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ok", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, map[string]bool{"ok": true}) })
	mux.HandleFunc("GET /info", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, map[string]any{"version": "hitl-demo", "context": "demo", "flags": map[string]bool{"assistants": false, "crons": false}})
	})
	mux.HandleFunc("DELETE /threads/{id}", s.deleteThread)
	mux.HandleFunc("POST /threads", s.createThread)
	mux.HandleFunc("POST /threads/search", s.searchThreads)
	mux.HandleFunc("POST /threads/count", s.countThreads)
	mux.HandleFunc("GET /threads/{id}", s.getThread)
	mux.HandleFunc("PATCH /threads/{id}", s.patchThread)
	mux.HandleFunc("GET /threads/{id}/state", s.getState)
	mux.HandleFunc("POST /threads/{id}/state", s.updateState)
	mux.HandleFunc("POST /threads/{id}/history", s.getHistory)
	mux.HandleFunc("GET /threads/{id}/runs", s.listRuns)
	mux.HandleFunc("POST /threads/{id}/runs", s.createRun)
	mux.HandleFunc("POST /threads/{id}/runs/wait", s.createRunWait)
	mux.HandleFunc("POST /threads/{id}/runs/stream", s.createRunStream)
	mux.HandleFunc("GET /threads/{id}/runs/{run}", s.getRun)
	mux.HandleFunc("GET /threads/{id}/runs/{run}/join", s.joinRun)
	mux.HandleFunc("GET /threads/{id}/runs/{run}/stream", s.streamRun)
	return mux
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// newUUID is a random UUID, version 4 as the JS server's: one whose
// version nibble came out 7 by chance would pass for the Python server's
// UUIDv7 (a clock first), which lists name by its end.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	id := hex.EncodeToString(b[:])
	return id[:8] + "-" + id[8:12] + "-" + id[12:16] + "-" + id[16:20] + "-" + id[20:]
}

// assistantID is the stable assistant id the server gives a graph.
func assistantID(graph string) string {
	return "00000000-0000-4000-8000-" + fmt.Sprintf("%012x", hashString(graph)&0xffffffffffff)
}

func hashString(s string) uint64 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// writeJSON and writeError answer as every demo server does: as the
// coordinator protocol's servers answer (wire).
func writeJSON(w http.ResponseWriter, code int, v any) { wire.WriteJSON(w, code, v) }

func writeError(w http.ResponseWriter, code int, msg string) { wire.WriteError(w, code, msg) }

func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 16<<20))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil && !errors.Is(err, context.Canceled) && err.Error() != "EOF" {
		return err
	}
	return nil
}

// threadJSON is a thread as the API shows it.
func (t *thread) json(withValues bool) map[string]any {
	ints := map[string]any{}
	for _, p := range append(append([]pending(nil), t.Answered...), t.Interrupts...) {
		list, _ := ints[p.TaskID].([]any)
		if t.Status == "error" {
			// A failed task is listed with no interrupt (its state has it).
			ints[p.TaskID] = []any{}
			continue
		}
		ints[p.TaskID] = append(list, p.json())
	}
	if t.Status == "interrupted" && len(t.Interrupts) == 0 && len(t.Next) > 0 {
		ints["bp-"+t.Checkpoint] = []any{} // a breakpoint lists its task with no interrupt
	}
	out := map[string]any{
		"thread_id":  t.ID,
		"created_at": t.CreatedAt.UTC().Format(time.RFC3339Nano),
		"updated_at": t.UpdatedAt.UTC().Format(time.RFC3339Nano),
		"metadata":   t.Metadata,
		"status":     t.Status,
		"interrupts": ints,
	}
	if withValues {
		out["values"] = t.Values
	}
	return out
}

// json is the interrupt as the API lists it: id, value, and the answer's
// schema when the graph gave one.
func (p pending) json() map[string]any {
	out := map[string]any{"id": p.ID, "value": p.Value}
	if p.Schema != nil {
		out["response_schema"] = p.Schema
	}
	return out
}

func (s *Server) createThread(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Metadata map[string]any `json:"metadata"`
	}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, 422, err.Error())
		return
	}
	s.mu.Lock()
	t := s.newThread(newUUID(), body.Metadata)
	out := t.json(true)
	s.mu.Unlock()
	writeJSON(w, 200, out)
}

// newThread makes a thread of that id; the lock is held.
func (s *Server) newThread(id string, meta map[string]any) *thread {
	now := time.Now()
	if meta == nil {
		meta = map[string]any{}
	}
	t := &thread{ID: id, CreatedAt: now, UpdatedAt: now, StateAt: now, Metadata: meta, Status: "idle", Values: map[string]any{}, Checkpoint: newUUID()}
	s.threads[t.ID] = t
	return t
}

// thread finds the request's thread, or answers 404 as the real server
// does; the lock is held.
func (s *Server) thread(w http.ResponseWriter, r *http.Request) *thread {
	t := s.threads[r.PathValue("id")]
	if t == nil {
		writeError(w, 404, fmt.Sprintf("Thread with ID %s not found", r.PathValue("id")))
	}
	return t
}

func (s *Server) getThread(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.thread(w, r); t != nil {
		writeJSON(w, 200, t.json(true))
	}
}

// patchThread merges the body's metadata into the thread's, key by key (a
// key set to null stays, as null), and moves updated_at, as the real
// server does.
func (s *Server) patchThread(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, 422, err.Error())
		return
	}
	var meta map[string]any
	if len(body.Metadata) > 0 && json.Unmarshal(body.Metadata, &meta) != nil {
		writeError(w, 400, "metadata: Expected object")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.thread(w, r)
	if t == nil {
		return
	}
	for k, v := range meta {
		t.Metadata[k] = v
	}
	t.UpdatedAt = time.Now()
	writeJSON(w, 200, t.json(true))
}

// deleteThread removes a thread and its runs (204), as the real server does.
func (s *Server) deleteThread(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.thread(w, r)
	if t == nil {
		return
	}
	delete(s.threads, t.ID)
	for id, ru := range s.runs {
		if ru.ThreadID == t.ID {
			delete(s.runs, id)
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) getState(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.thread(w, r)
	if t == nil {
		return
	}
	tasks := []any{}
	byTask := map[string][]any{}
	results := map[string]any{}
	var order []string
	for _, p := range append(append([]pending(nil), t.Answered...), t.Interrupts...) {
		if _, ok := byTask[p.TaskID]; !ok {
			order = append(order, p.TaskID)
		}
		byTask[p.TaskID] = append(byTask[p.TaskID], p.json())
		if p.Result != nil {
			results[p.TaskID] = map[string]any{"answer": p.Result}
		}
	}
	for _, id := range order {
		task := map[string]any{"id": id, "name": id, "interrupts": byTask[id], "result": results[id], "error": nil}
		if msg, ok := t.Failed[id]; ok {
			// As the real server keeps it: a JSON string {"message", "name"}.
			task["error"] = compact(map[string]string{"message": msg, "name": "Error"})
		}
		tasks = append(tasks, task)
	}
	for _, n := range t.Next {
		if len(t.Interrupts) == 0 {
			tasks = append(tasks, map[string]any{"id": "bp-" + t.Checkpoint, "name": n, "interrupts": []any{}})
		}
	}
	next := t.Next
	if next == nil {
		next = []string{}
	}
	writeJSON(w, 200, map[string]any{
		"values": t.Values, "next": next, "tasks": tasks, "metadata": t.Metadata,
		"created_at": t.StateAt.UTC().Format(time.RFC3339Nano),
		"checkpoint": map[string]any{"thread_id": t.ID, "checkpoint_id": t.Checkpoint, "checkpoint_ns": ""},
	})
}

// updateState writes values as the node as_node, as the real server does
// (POST /threads/{id}/state): the node's pending interrupts are taken as
// answered by the update and nothing runs next; the thread keeps its
// status until a run (a run with no input then finds nothing to do and
// leaves it idle). Only what hitl sends is modelled: as_node names a task
// that holds an interrupt, or "__end__" with no values.
func (s *Server) updateState(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Values map[string]any `json:"values"`
		AsNode string         `json:"as_node"`
	}
	if err := decodeBody(r, &req); err != nil {
		writeError(w, 422, err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.thread(w, r)
	if t == nil {
		return
	}
	if t.Status == "busy" {
		writeError(w, 409, "Thread is busy")
		return
	}
	held := req.AsNode == "__end__"
	for _, p := range t.Interrupts {
		held = held || p.TaskID == req.AsNode
	}
	if !held {
		writeError(w, 422, fmt.Sprintf("as_node %q holds no pending task of this thread", req.AsNode))
		return
	}
	if req.AsNode == "__end__" && len(req.Values) > 0 {
		writeError(w, 500, "Internal Server Error") // as langgraphjs dev answers it
		return
	}
	if msgs, ok := req.Values["messages"].([]any); ok {
		for _, m := range msgs {
			if mm, ok := m.(map[string]any); ok {
				addMessage(t, mm)
			}
		}
	}
	t.Interrupts, t.Answered, t.Next, t.Failed = nil, nil, nil, nil
	id := newUUID()
	t.History = append(t.History, checkpointRec{ID: id, Parent: t.Checkpoint, Metadata: map[string]any{"source": "update", "step": len(t.History)}})
	t.Checkpoint = id
	t.UpdatedAt = time.Now()
	t.StateAt = t.UpdatedAt
	writeJSON(w, 200, map[string]any{"checkpoint": map[string]any{"thread_id": t.ID, "checkpoint_ns": "", "checkpoint_id": id}})
}

// countThreads counts the threads of a status and metadata, as both real
// servers do (POST /threads/count answers a bare number).
func (s *Server) countThreads(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Status   string         `json:"status"`
		Metadata map[string]any `json:"metadata"`
	}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, 422, err.Error())
		return
	}
	s.mu.Lock()
	n := 0
	for _, t := range s.threads {
		if (body.Status == "" || t.Status == body.Status) && metaMatches(t.Metadata, body.Metadata) {
			n++
		}
	}
	s.mu.Unlock()
	writeJSON(w, 200, n)
}

func (s *Server) searchThreads(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Status    string         `json:"status"`
		Limit     *int           `json:"limit"`
		Offset    int            `json:"offset"`
		SortBy    string         `json:"sort_by"`
		SortOrder string         `json:"sort_order"`
		Metadata  map[string]any `json:"metadata"`
		IDs       []string       `json:"ids"`
		Select    []string       `json:"select"`
	}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, 422, err.Error())
		return
	}
	limit := 10
	if body.Limit != nil {
		limit = *body.Limit
	}
	if limit < 1 || limit > 1000 {
		writeError(w, 422, "limit must be between 1 and 1000")
		return
	}
	s.mu.Lock()
	var list []*thread
	ids := map[string]bool{}
	for _, id := range body.IDs {
		ids[id] = true
	}
	for _, t := range s.threads {
		if body.Status != "" && t.Status != body.Status {
			continue
		}
		if len(ids) > 0 && !ids[t.ID] {
			continue
		}
		if !metaMatches(t.Metadata, body.Metadata) {
			continue
		}
		list = append(list, t)
	}
	sortThreads(list, body.SortBy, body.SortOrder)
	total := len(list)
	if body.Offset < len(list) {
		list = list[body.Offset:]
	} else {
		list = nil
	}
	if len(list) > limit {
		list = list[:limit]
	}
	out := make([]map[string]any, 0, len(list))
	for _, t := range list {
		full := t.json(true)
		if len(body.Select) > 0 {
			sel := map[string]any{}
			for _, k := range body.Select {
				if v, ok := full[k]; ok {
					sel[k] = v
				}
			}
			full = sel
		}
		out = append(out, full)
	}
	s.mu.Unlock()
	w.Header().Set("X-Pagination-Total", strconv.Itoa(total))
	writeJSON(w, 200, out)
}

func metaMatches(have, want map[string]any) bool {
	for k, v := range want {
		if fmt.Sprint(have[k]) != fmt.Sprint(v) {
			return false
		}
	}
	return true
}

func sortThreads(list []*thread, by, order string) {
	key := func(t *thread) time.Time { return t.UpdatedAt }
	if by == "created_at" {
		key = func(t *thread) time.Time { return t.CreatedAt }
	}
	sort.SliceStable(list, func(i, j int) bool {
		if order == "asc" {
			return key(list[i]).Before(key(list[j]))
		}
		return key(list[i]).After(key(list[j]))
	})
}

type runRequest struct {
	AssistantID string          `json:"assistant_id"`
	Input       json.RawMessage `json:"input"`
	Command     *struct {
		Resume json.RawMessage `json:"resume"`
	} `json:"command"`
	MultitaskStrategy string         `json:"multitask_strategy"`
	Metadata          map[string]any `json:"metadata"`
	StreamResumable   bool           `json:"stream_resumable"`
	IfNotExists       string         `json:"if_not_exists"`
}

// startRun validates and starts a run; the graph step runs after RunDelay.
func (s *Server) startRun(w http.ResponseWriter, r *http.Request) *run {
	var req runRequest
	if err := decodeBody(r, &req); err != nil {
		writeError(w, 422, err.Error())
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// if_not_exists "create" makes the thread of the path's id when there
	// is none, as the real servers do (a client's own thread id, the
	// README's curl); otherwise a thread nobody made is a 404.
	// A thread to be created for an assistant that does not exist is
	// refused for the assistant, not for the thread.
	graph := s.graphFor(req.AssistantID)
	var t *thread
	if req.IfNotExists == "create" && s.threads[r.PathValue("id")] == nil && graph != nil {
		t = s.newThread(r.PathValue("id"), nil)
	} else if req.IfNotExists != "create" || s.threads[r.PathValue("id")] != nil {
		if t = s.thread(w, r); t == nil {
			return nil
		}
	}
	if graph == nil {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(404)
		fmt.Fprintf(w, "No assistant found for %q. Make sure the assistant ID is for a valid assistant or a valid graph ID.", req.AssistantID)
		return nil
	}
	if t.Status == "busy" && req.MultitaskStrategy == "reject" {
		writeError(w, 422, "Thread is already running a task. Wait for it to finish or choose a different multitask strategy.")
		return nil
	}
	if t.graph == "" {
		t.graph = graph.ID()
		t.Metadata["graph_id"] = graph.ID()
		t.Metadata["assistant_id"] = assistantID(graph.ID())
	}
	meta := map[string]any{"graph_id": graph.ID(), "assistant_id": assistantID(graph.ID())}
	for k, v := range req.Metadata {
		meta[k] = v
	}
	ru := &run{ID: newUUID(), ThreadID: t.ID, Assistant: assistantID(graph.ID()), Status: "pending", CreatedAt: time.Now(), done: make(chan struct{}),
		kwargs: map[string]any{}, Metadata: meta}
	if req.Command != nil {
		ru.kwargs["command"] = map[string]any{"resume": req.Command.Resume}
	} else {
		ru.kwargs["input"] = req.Input
	}
	ru.kwargs["resumable"] = req.StreamResumable
	s.runs[ru.ID] = ru
	prev := t.Status
	t.Status = "busy"
	t.UpdatedAt = time.Now()
	go s.execute(ru, t, graph, req, prev)
	return ru
}

func (s *Server) graphFor(assistant string) Graph {
	if g, ok := s.graphs[assistant]; ok {
		return g
	}
	for id, g := range s.graphs {
		if assistantID(id) == assistant {
			return g
		}
	}
	return nil
}

// execute runs one step of the graph: a start, a resume, or a continue.
func (s *Server) execute(ru *run, t *thread, g Graph, req runRequest, prevStatus string) {
	time.Sleep(s.RunDelay)
	s.mu.Lock()
	defer s.mu.Unlock()
	defer close(ru.done)
	ru.Status = "running"
	wrote, err := s.step(t, g, req, prevStatus)
	t.UpdatedAt = time.Now()
	if wrote && err == nil {
		// Like the real server: a run that changed the graph writes a
		// checkpoint (carrying the run's metadata); a stale resume and a
		// branch answered while its siblings wait write none.
		meta := map[string]any{"run_id": ru.ID, "step": len(t.History)}
		for k, v := range ru.Metadata {
			meta[k] = v
		}
		id := newUUID()
		t.History = append(t.History, checkpointRec{ID: id, Parent: t.Checkpoint, Metadata: meta})
		t.Checkpoint = id
		t.StateAt = t.UpdatedAt
	}
	switch {
	case err != nil:
		ru.Status, ru.Error = "error", err.Error()
		t.Status = "error"
		if len(t.Failed) == 0 {
			t.Interrupts = nil
		}
		t.Next = nil
	case len(t.Interrupts) > 0 || len(t.Next) > 0:
		ru.Status = "success"
		t.Status = "interrupted"
	default:
		ru.Status = "success"
		t.Status = "idle"
	}
}

// step runs the graph and reports whether it wrote a checkpoint.
func (s *Server) step(t *thread, g Graph, req runRequest, prevStatus string) (bool, error) {
	if req.Command != nil && req.Command.Resume != nil {
		resumes, err := s.resumeMap(t, req.Command.Resume)
		if err != nil {
			return false, err
		}
		// Keys that are not pending resume nothing (as on the real server).
		before := append([]pending(nil), t.Interrupts...)
		answered := append([]pending(nil), t.Answered...)
		applied := 0
		for _, p := range before {
			v, ok := resumes[p.ID]
			if !ok {
				continue
			}
			applied++
			t.Interrupts = without(t.Interrupts, p.ID)
			p.Result = v
			t.Answered = append(t.Answered, p)
			if err := g.Resume(t, p, v); err != nil {
				// The refused answer is not taken: the task keeps its
				// interrupt and the error.
				t.Interrupts, t.Answered = before, answered
				t.Failed = map[string]string{p.TaskID: err.Error()}
				return false, err
			}
		}
		if applied == 0 {
			return false, nil
		}
		t.Failed = nil
		for _, p := range before {
			if _, ok := resumes[p.ID]; !ok && hasPending(t.Interrupts, p.ID) {
				return false, nil // siblings still wait: no checkpoint yet
			}
		}
		t.Answered = nil
		return true, nil
	}
	if prevStatus == "interrupted" && len(t.Next) > 0 && len(t.Interrupts) == 0 {
		t.Next = nil
		return true, g.Continue(t)
	}
	var input map[string]any
	if len(req.Input) > 0 && string(req.Input) != "null" {
		if err := json.Unmarshal(req.Input, &input); err != nil {
			return false, fmt.Errorf("input must be an object: %v", err)
		}
	}
	if input == nil && prevStatus != "idle" {
		return false, nil
	}
	return true, g.Start(t, input)
}

func hasPending(ps []pending, id string) bool {
	for _, p := range ps {
		if p.ID == id {
			return true
		}
	}
	return false
}

// resumeMap reads a resume: a map keyed by interrupt id, or a plain value
// when exactly one interrupt is pending.
func (s *Server) resumeMap(t *thread, raw json.RawMessage) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil && len(m) > 0 {
		allIDs := true
		for k := range m {
			if len(k) != 32 {
				allIDs = false
			}
		}
		if allIDs {
			return m, nil
		}
	}
	switch len(t.Interrupts) {
	case 0:
		return nil, nil
	case 1:
		return map[string]json.RawMessage{t.Interrupts[0].ID: raw}, nil
	}
	//lint:ignore ST1005 the real server's message, word for word
	return nil, errors.New("When there are multiple pending interrupts, you must specify the interrupt id when resuming.")
}

func without(ps []pending, id string) []pending {
	out := ps[:0]
	for _, p := range ps {
		if p.ID != id {
			out = append(out, p)
		}
	}
	return out
}

func (r *run) json() map[string]any {
	return map[string]any{"run_id": r.ID, "thread_id": r.ThreadID, "assistant_id": r.Assistant, "status": r.Status,
		"multitask_strategy": "reject", "kwargs": r.kwargs, "metadata": r.Metadata,
		"created_at": r.CreatedAt.UTC().Format(time.RFC3339Nano), "updated_at": r.CreatedAt.UTC().Format(time.RFC3339Nano)}
}

func (s *Server) createRun(w http.ResponseWriter, r *http.Request) {
	if ru := s.startRun(w, r); ru != nil {
		s.writeRun(w, ru)
	}
}

func (s *Server) writeRun(w http.ResponseWriter, ru *run) {
	s.mu.Lock()
	out := ru.json()
	s.mu.Unlock()
	writeJSON(w, 200, out)
}

func (s *Server) createRunWait(w http.ResponseWriter, r *http.Request) {
	ru := s.startRun(w, r)
	if ru == nil {
		return
	}
	<-ru.done
	s.writeJoin(w, ru)
}

func (s *Server) writeJoin(w http.ResponseWriter, ru *run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ru.Status == "error" {
		writeJSON(w, 200, map[string]any{"__error__": map[string]string{"error": "Error", "message": ru.Error}})
		return
	}
	t := s.threads[ru.ThreadID]
	out := map[string]any{}
	for k, v := range t.Values {
		out[k] = v
	}
	if len(t.Interrupts) > 0 {
		var ints []any
		for _, p := range t.Interrupts {
			ints = append(ints, p.json())
		}
		out["__interrupt__"] = ints
	}
	writeJSON(w, 200, out)
}

func (s *Server) lookupRun(w http.ResponseWriter, r *http.Request) *run {
	s.mu.Lock()
	defer s.mu.Unlock()
	ru := s.runs[r.PathValue("run")]
	if ru == nil || ru.ThreadID != r.PathValue("id") {
		writeError(w, 404, "Run not found")
		return nil
	}
	return ru
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	if ru := s.lookupRun(w, r); ru != nil {
		s.writeRun(w, ru)
	}
}

func (s *Server) joinRun(w http.ResponseWriter, r *http.Request) {
	ru := s.lookupRun(w, r)
	if ru == nil {
		return
	}
	select {
	case <-ru.done:
	case <-r.Context().Done():
		return
	}
	s.writeJoin(w, ru)
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	var list []*run
	for _, ru := range s.runs {
		if ru.ThreadID == r.PathValue("id") && (r.URL.Query().Get("status") == "" || ru.Status == r.URL.Query().Get("status")) {
			list = append(list, ru)
		}
	}
	// Oldest first, and 10 unless asked, as the JS server lists them.
	sort.Slice(list, func(i, j int) bool { return list[i].CreatedAt.Before(list[j].CreatedAt) })
	limit := 10
	if n, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && n > 0 {
		limit = n
	}
	for _, ru := range list[:min(limit, len(list))] {
		out = append(out, ru.json())
	}
	if out == nil {
		out = []map[string]any{}
	}
	writeJSON(w, 200, out)
}

// getHistory lists the thread's checkpoints whose metadata matches, newest
// first (limit, default 10).
func (s *Server) getHistory(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Limit    int            `json:"limit"`
		Metadata map[string]any `json:"metadata"`
	}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, 422, err.Error())
		return
	}
	if body.Limit <= 0 {
		body.Limit = 10
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.thread(w, r)
	if t == nil {
		return
	}
	out := []any{}
	for i := len(t.History) - 1; i >= 0 && len(out) < body.Limit; i-- {
		c := t.History[i]
		if !metaMatches(c.Metadata, body.Metadata) {
			continue
		}
		e := map[string]any{"checkpoint": map[string]any{"thread_id": t.ID, "checkpoint_id": c.ID, "checkpoint_ns": ""}, "metadata": c.Metadata}
		if c.Parent != "" {
			e["parent_checkpoint"] = map[string]any{"thread_id": t.ID, "checkpoint_id": c.Parent, "checkpoint_ns": ""}
		}
		out = append(out, e)
	}
	writeJSON(w, 200, out)
}

// SSE: metadata, then values (with __interrupt__ when paused) or error; the
// stream then closes, as the JS server's does.
func (s *Server) createRunStream(w http.ResponseWriter, r *http.Request) {
	ru := s.startRun(w, r)
	if ru == nil {
		return
	}
	s.sse(w, r, ru)
}

func (s *Server) streamRun(w http.ResponseWriter, r *http.Request) {
	ru := s.lookupRun(w, r)
	if ru == nil {
		return
	}
	s.sse(w, r, ru)
}

func (s *Server) sse(w http.ResponseWriter, r *http.Request, ru *run) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	n := 0
	event := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\nid: %d\n\n", name, b, n)
		n++
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	event("metadata", map[string]any{"run_id": ru.ID, "attempt": 1})
	select {
	case <-ru.done:
	case <-r.Context().Done():
		return
	}
	s.mu.Lock()
	status, errMsg := ru.Status, ru.Error
	t := s.threads[ru.ThreadID]
	values := map[string]any{}
	for k, v := range t.Values {
		values[k] = v
	}
	var ints []any
	for _, p := range t.Interrupts {
		ints = append(ints, p.json())
	}
	s.mu.Unlock()
	if status == "error" {
		event("error", map[string]string{"error": "Error", "message": errMsg})
		return
	}
	if len(ints) > 0 {
		event("updates", map[string]any{"__interrupt__": ints})
		values["__interrupt__"] = ints
	}
	event("values", values)
}

// compact writes v as one line of JSON, for messages.
func compact(v any) string {
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(v)
	return strings.TrimSpace(b.String())
}
