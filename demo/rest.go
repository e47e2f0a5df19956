package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/coord/wire"
)

// RESTServer is a faithful fake of the provider-agnostic REST HITL API of
// seed 004: runs that walk through information review, payload review and
// response review, each waiting for a human approval.
type RESTServer struct {
	// StepDelay is how long the work between two checkpoints takes (0: none).
	StepDelay time.Duration
	// User owns the runs that Seed and Produce start (their user_id).
	User string

	mu   sync.Mutex
	runs map[string]*restRun
	hub  wire.Hub
	listener
	n int
}

type restRun struct {
	ID          string
	UserID      string
	Status      string // awaiting_human | running | paused | completed | cancelled | failed
	CurrentStep string
	Created     time.Time
	Updated     time.Time
	Approval    string // the pending approval id, at CurrentStep
	Allowed     []string
	State       map[string]any
	History     []map[string]any
	// Decisions are who decided each approval, with the decision id the
	// reviewer sent (hitl reads it back when the answer was lost).
	Decisions []map[string]any
}

var checkpoints = []string{"information_review", "payload_review", "response_review"}

// NewREST returns the fake with no runs.
func NewREST() *RESTServer {
	return &RESTServer{runs: map[string]*restRun{}, StepDelay: 200 * time.Millisecond, hub: wire.Hub{Stream: wire.Stream{FromStart: true}}}
}

// Start listens on addr and serves in the background.
func (s *RESTServer) Start(addr string) error { return s.listen(addr, s.Handler()) }

// Close stops it.
func (s *RESTServer) Close() error {
	s.hub.Close()
	return s.close()
}

// event tells every stream reader what happened to run r.
func (s *RESTServer) event(typ string, r *restRun) {
	s.hub.Publish(typ, map[string]any{"run_id": r.ID, "status": r.Status, "current_step": r.CurrentStep})
}

// Handler serves the API.
func (s *RESTServer) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/hitl/approvals/pending", s.pending)
	mux.Handle("GET /api/hitl/events", &s.hub)
	mux.HandleFunc("GET /api/hitl/runs", s.list)
	mux.HandleFunc("POST /api/hitl/run", s.create)
	mux.HandleFunc("GET /api/hitl/run/{id}/state", s.withRun(func(w http.ResponseWriter, _ *http.Request, r *restRun) { writeJSON(w, 200, r.state()) }))
	mux.HandleFunc("GET /api/hitl/run/{id}/status", s.withRun(func(w http.ResponseWriter, _ *http.Request, r *restRun) { writeJSON(w, 200, r.status()) }))
	mux.HandleFunc("POST /api/hitl/run/{id}/approve", s.withRun(s.approve))
	mux.HandleFunc("POST /api/hitl/run/{id}/pause", s.withRun(s.control("pause")))
	mux.HandleFunc("POST /api/hitl/run/{id}/resume", s.withRun(s.control("resume")))
	mux.HandleFunc("DELETE /api/hitl/run/{id}", s.withRun(s.control("cancel")))
	return mux
}

// scenarios are the demo runs: prompts for an image model through Replicate.
var restScenarios = []struct {
	prompt, model string
	confidence    float64
	flags         []string
}{
	{"A watercolor fox reading a newspaper in a cafe", "black-forest-labs/flux-schnell", 0.62, nil},
	{"Product photo of our new running shoe on a beach at sunset", "stability-ai/sdxl", 0.81, []string{"brand"}},
	{"Portrait of a celebrity at a protest", "black-forest-labs/flux-dev", 0.44, []string{"pii", "likeness"}},
}

// Spawn starts a run for user at its first checkpoint and returns its id.
func (s *RESTServer) Spawn(user string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := restScenarios[s.n%len(restScenarios)]
	s.n++
	now := time.Now()
	r := &restRun{ID: "run-" + newID()[:12], UserID: user, Created: now, Updated: now, State: map[string]any{
		"original_input": map[string]any{"prompt": sc.prompt},
		"tool_config":    map[string]any{"REPLICATETOOL": map[string]any{"data": map[string]any{"model_name": sc.model}}},
		"information_result": map[string]any{
			"model": sc.model, "tool": "REPLICATETOOL", "summary": "Text-to-image model; 1 image per call, 1024x1024 by default.",
			"confidence": sc.confidence, "reasons": []any{"the prompt names a style but no size", "the model supports negative prompts"},
			"safety_flags":               orEmpty(sc.flags),
			"recommended_model_settings": ordered{{"num_outputs", 1}, {"aspect_ratio", "1:1"}, {"output_format", "webp"}},
		},
		"example_input": ordered{{"prompt", "an astronaut riding a horse"}, {"num_outputs", 1}, {"aspect_ratio", "1:1"}, {"output_format", "webp"}},
		"suggested_payload": ordered{{"prompt", sc.prompt}, {"num_outputs", 4}, {"aspect_ratio", "16:9"}, {"output_format", "png"},
			{"image_file", nil}},
		"validation": []any{map[string]any{"field": "image_file", "message": "null is not a valid image", "suggested_fix": "remove it, or map it to input_image"}},
	}}
	s.runs[r.ID] = r
	r.enter(checkpoints[0])
	s.event("created", r)
	s.event(r.CurrentStep, r)
	time.Sleep(time.Millisecond) // distinct times: a stable newest-first order
	return r.ID
}

func orEmpty(ss []string) []any {
	out := []any{}
	for _, s := range ss {
		out = append(out, s)
	}
	return out
}

func (r *restRun) enter(step string) {
	r.CurrentStep, r.Status, r.Approval = step, "awaiting_human", "apr-"+newID()[:16]
	r.Allowed = []string{"approve", "edit", "reject"}
	r.Updated = time.Now()
}

func (r *restRun) state() map[string]any {
	out := map[string]any{"run_id": r.ID, "status": r.Status, "current_step": r.CurrentStep,
		"created_at": r.Created.UTC().Format(time.RFC3339Nano), "updated_at": r.Updated.UTC().Format(time.RFC3339Nano),
		"step_history": r.History, "decisions": r.Decisions}
	for k, v := range r.State {
		out[k] = v
	}
	if r.Approval != "" {
		out["pending_actions"] = []any{map[string]any{"approval_id": r.Approval, "checkpoint": r.CurrentStep, "allowed_actions": r.Allowed}}
	}
	return out
}

func (r *restRun) status() map[string]any {
	done := 0
	for i, c := range checkpoints {
		if c == r.CurrentStep {
			done = i
		}
	}
	if r.Status == "completed" {
		done = len(checkpoints)
	}
	return map[string]any{"run_id": r.ID, "status": r.Status, "current_step": r.CurrentStep,
		"progress": map[string]any{"done": done, "total": len(checkpoints)}, "error": r.State["error"]}
}

func (s *RESTServer) withRun(f func(http.ResponseWriter, *http.Request, *restRun)) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		r := s.runs[req.PathValue("id")]
		if r == nil {
			writeError(w, 404, fmt.Sprintf("run %s not found", req.PathValue("id")))
			return
		}
		f(w, req, r)
	}
}

func (s *RESTServer) pending(w http.ResponseWriter, req *http.Request) {
	user := req.URL.Query().Get("user_id")
	s.mu.Lock()
	var list []*restRun
	for _, r := range s.runs {
		if r.Approval != "" && (user == "" || r.UserID == "" || r.UserID == user) {
			list = append(list, r)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Updated.After(list[j].Updated) })
	out := []any{}
	for _, r := range list {
		out = append(out, map[string]any{"approval_id": r.Approval, "run_id": r.ID, "checkpoint": r.CurrentStep,
			"allowed_actions": r.Allowed, "user_id": r.UserID, "created_at": r.Updated.UTC().Format(time.RFC3339Nano),
			"message": "Human review needed at " + r.CurrentStep})
	}
	s.mu.Unlock()
	writeJSON(w, 200, out)
}

func (s *RESTServer) list(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	out := []any{}
	for _, r := range s.runs {
		out = append(out, r.status())
	}
	s.mu.Unlock()
	writeJSON(w, 200, out)
}

func (s *RESTServer) create(w http.ResponseWriter, req *http.Request) {
	var body struct {
		UserID string `json:"user_id"`
	}
	_ = decodeBody(req, &body)
	id := s.Spawn(body.UserID)
	writeJSON(w, 200, map[string]any{"run_id": id, "status": "queued", "message": "HITL run started successfully"})
}

func (s *RESTServer) approve(w http.ResponseWriter, req *http.Request, r *restRun) {
	var body struct {
		ApprovalID string          `json:"approval_id"`
		Action     string          `json:"action"`
		Edits      json.RawMessage `json:"edits"`
		Reason     string          `json:"reason"`
		ApprovedBy string          `json:"approved_by"`
		DecisionID string          `json:"decision_id"`
	}
	if err := decodeBody(req, &body); err != nil {
		writeError(w, 422, "body: "+err.Error())
		return
	}
	if r.Status == "paused" {
		writeError(w, 422, "the run is paused: resume it first")
		return
	}
	if body.ApprovalID == "" || body.ApprovalID != r.Approval {
		writeError(w, 409, fmt.Sprintf("approval %q is not pending on run %s", body.ApprovalID, r.ID))
		return
	}
	if !contains(r.Allowed, body.Action) {
		writeError(w, 422, fmt.Sprintf("action %q is not allowed here; allowed: %v", body.Action, r.Allowed))
		return
	}
	r.History = append(r.History, map[string]any{"step": r.CurrentStep, "actor": "human", "approved_by": body.ApprovedBy,
		"action": body.Action, "edits": body.Edits, "reason": body.Reason, "at": time.Now().UTC().Format(time.RFC3339)})
	r.Decisions = append(r.Decisions, map[string]any{"approval_id": body.ApprovalID, "decision_id": body.DecisionID,
		"approved_by": body.ApprovedBy, "action": body.Action, "at": time.Now().UTC().Format(time.RFC3339Nano)})
	if body.Action == "reject" {
		r.Status, r.Approval, r.Updated = "cancelled", "", time.Now()
		r.State["error"] = "rejected at " + r.CurrentStep + ": " + body.Reason
		s.event("cancelled", r)
		writeJSON(w, 200, r.status())
		return
	}
	if body.Action == "edit" {
		var edits map[string]json.RawMessage
		if err := json.Unmarshal(body.Edits, &edits); err != nil || len(edits) == 0 {
			writeError(w, 422, "edit needs edits: an object of changed fields")
			return
		}
		r.applyEdits(edits)
	}
	// The next step runs a moment, then waits at the next checkpoint.
	r.Approval, r.Status, r.Updated = "", "running", time.Now()
	s.event("api_call", r)
	step := r.CurrentStep
	next := func() {
		for i, c := range checkpoints {
			if c != step {
				continue
			}
			if i+1 < len(checkpoints) {
				if checkpoints[i+1] == "payload_review" {
					// The payload is built from the (possibly edited) input.
					var payload map[string]json.RawMessage
					b, _ := json.Marshal(r.State["suggested_payload"])
					_ = json.Unmarshal(b, &payload)
					prompt, _ := json.Marshal(r.State["original_input"].(map[string]any)["prompt"])
					payload["prompt"] = prompt
					r.State["suggested_payload"] = payload
				}
				if checkpoints[i+1] == "response_review" {
					p, _ := json.Marshal(r.State["suggested_payload"])
					r.State["api_response"] = fmt.Sprintf(`{"id":"pred_%s","status":"succeeded","output":["https://replicate.delivery/xyz/out-0.webp"],"metrics":{"predict_time":2.41},"input":%s}`, newID()[:8], p)
					r.State["final_result"] = "Generated 1 image: https://replicate.delivery/xyz/out-0.webp (2.4 s)."
				}
				r.enter(checkpoints[i+1])
				s.event(r.CurrentStep, r)
			} else {
				r.Status, r.Updated = "completed", time.Now()
				s.event("completed", r)
			}
		}
	}
	if s.StepDelay <= 0 {
		next()
	} else {
		go func() {
			time.Sleep(s.StepDelay)
			s.mu.Lock()
			defer s.mu.Unlock()
			next()
		}()
	}
	writeJSON(w, 200, r.status())
}

func (r *restRun) applyEdits(edits map[string]json.RawMessage) {
	switch r.CurrentStep {
	case "information_review":
		in := r.State["original_input"].(map[string]any)
		if v, ok := edits["prompt"]; ok {
			var s string
			_ = json.Unmarshal(v, &s)
			in["prompt"] = s
		}
		if v, ok := edits["model"]; ok {
			var s string
			_ = json.Unmarshal(v, &s)
			r.State["information_result"].(map[string]any)["model"] = s
		}
	case "payload_review":
		var current map[string]json.RawMessage
		b, _ := json.Marshal(r.State["suggested_payload"])
		_ = json.Unmarshal(b, &current)
		for k, v := range edits {
			if string(v) == "null" {
				delete(current, k)
			} else {
				current[k] = v
			}
		}
		r.State["suggested_payload"] = current
	case "response_review":
		var text string
		_ = json.Unmarshal(edits["text"], &text)
		r.State["final_result"] = text
	}
}

func (s *RESTServer) control(action string) func(http.ResponseWriter, *http.Request, *restRun) {
	return func(w http.ResponseWriter, _ *http.Request, r *restRun) {
		switch action {
		case "pause":
			if r.Status != "awaiting_human" && r.Status != "running" {
				writeError(w, 409, "only a waiting or running run can be paused; this one is "+r.Status)
				return
			}
			r.Status = "paused"
		case "resume":
			if r.Status != "paused" {
				writeError(w, 409, "the run is not paused; it is "+r.Status)
				return
			}
			r.Status = "awaiting_human"
		case "cancel":
			r.Status, r.Approval = "cancelled", ""
		}
		r.Updated = time.Now()
		s.event(map[string]string{"pause": "paused", "resume": "resumed", "cancel": "cancelled"}[action], r)
		writeJSON(w, 200, r.status())
	}
}

// Seed starts one run of every scenario for User, then burst more.
func (s *RESTServer) Seed(burst int) {
	for range len(restScenarios) + burst {
		s.Spawn(s.User)
	}
}

// Produce starts a run for User every `every` until ctx ends, while
// fewer than upTo runs await a human.
func (s *RESTServer) Produce(ctx context.Context, every time.Duration, upTo int) {
	produce(ctx, every, upTo, s.Waiting, func() { s.Spawn(s.User) })
}

// Waiting is how many runs await a human.
func (s *RESTServer) Waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sumOf(s.runs, func(r *restRun) int {
		if r.Status == "awaiting_human" {
			return 1
		}
		return 0
	})
}
