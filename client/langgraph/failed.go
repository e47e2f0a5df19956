package langgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// Threads whose last run failed. The server lists them with status
// "error" and an empty interrupt list, and keeps their error nowhere
// cheaper than the thread's state (observed on langgraphjs dev 2.0.0):
//
//   - the run object (GET /threads/{id}/runs/{run}, ?status=error) has
//     status "error" and no error text;
//   - joining the run answers {"__error__": {...}} only while it runs; once
//     it has ended, a join answers the thread's values;
//   - GET /threads/{id}/state lists the task that failed with "error": a
//     JSON string {"message", "name"} (a ZodError's message is its list of
//     issues, as JSON), and still holds the task's interrupts, result null.
//
// A new resume of a held interrupt is taken (after a response schema
// mismatch the graph then ran with the new answer); whether the graph
// uses it is the graph's business: LangChain's JS middleware, once it has
// failed on a decision, fails again on the same one whatever is sent.

// maxErrorText bounds the error kept of a failed thread: a server's text
// is shown in full up to there.
const maxErrorText = 64 << 10

// failedFacts is what the state of an errored thread said, for the
// thread's updated_at it was read at.
type failedFacts struct {
	updated time.Time
	text    string
	held    []client.Interrupt
	// ownFailed: the held interrupt of the same index is in the task that
	// failed (markAgain says what answering it again does).
	ownFailed []bool
}

// Failures lists threads whose last run failed, newest first: the error
// from each one's state, and the interrupts it still holds (marked Retry).
func (b *Backend) Failures(ctx context.Context, limit int) ([]client.Failure, int, error) {
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	body := map[string]any{
		"status":     "error",
		"limit":      limit,
		"offset":     0,
		"sort_by":    "updated_at",
		"sort_order": "desc",
		"select":     []string{"thread_id", "status", "metadata", "created_at", "updated_at", "interrupts"},
	}
	if meta := b.filters(); len(meta) > 0 {
		body["metadata"] = meta
	}
	var page threadPage // read one thread at a time: one poisoned thread hides no other
	resp, err := b.Reads.R().SetContext(ctx).SetBody(body).Post("/threads/search")
	if err := b.Check(resp, err, "list threads whose run failed", &page); err != nil {
		return nil, 0, err
	}
	total := len(page)
	if len(page) == limit {
		// More may fail than one page holds: count them (POST /threads/
		// count, on the LangGraph servers; a search of ids where there is
		// none, aegra) rather than trust X-Pagination-Total, which the JS
		// server gets wrong by one when the page is full.
		n, err := b.count(ctx, "error")
		if err != nil {
			return nil, 0, err
		}
		total = max(n, total)
	}
	out := make([]client.Failure, 0, len(page))
	keep := map[string]bool{}
	for i := range page {
		t := &page[i]
		if t.Status != "error" {
			continue
		}
		keep[t.ThreadID] = true
		fl := client.Failure{ThreadID: t.ThreadID, GraphID: t.meta("graph_id"), AssistantID: t.meta("assistant_id"),
			CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, Server: b.Server()}
		if problem := t.problem(); problem != "" {
			// What the server sent of it cannot be read: said as its
			// error, its state not read (it may name no thread at all).
			fl.Error = problem
		} else {
			f, err := b.failedFacts(ctx, t)
			if err != nil {
				return nil, 0, err
			}
			fl.Error, fl.Interrupts = f.text, b.markAgain(ctx, f)
		}
		out = append(out, fl)
	}
	b.mu.Lock()
	for id := range b.failed {
		if !keep[id] {
			delete(b.failed, id)
		}
	}
	b.mu.Unlock()
	return out, total, nil
}

// count is the server's count of threads of a status under the filters.
func (b *Backend) count(ctx context.Context, status string) (int, error) {
	body := map[string]any{"status": status}
	if meta := b.filters(); len(meta) > 0 {
		body["metadata"] = meta
	}
	var n int
	resp, err := b.Reads.R().SetContext(ctx).SetBody(body).Post("/threads/count")
	if err == nil && resp != nil && (resp.StatusCode() == http.StatusMethodNotAllowed || resp.StatusCode() == http.StatusNotFound) {
		// aegra has no POST /threads/count (405): count by searching,
		// thread ids only, a page at a time (docs/servers.md).
		return b.countBySearch(ctx, body)
	}
	if err := b.Check(resp, err, "count the threads whose run failed", &n); err != nil {
		return 0, err
	}
	return n, nil
}

// countBySearch counts what a search with body finds, a page of ids at a
// time, for a server without POST /threads/count. Pages are of 100, the
// most aegra gives; counting stops at maxCounted, a bound said as the total.
func (b *Backend) countBySearch(ctx context.Context, body map[string]any) (int, error) {
	const page, maxCounted = 100, 100_000
	n := 0
	for n < maxCounted {
		q := map[string]any{"limit": page, "offset": n, "select": []string{"thread_id"}, "sort_by": "created_at", "sort_order": "asc"}
		for k, v := range body {
			q[k] = v
		}
		var ids []struct {
			ThreadID string `json:"thread_id"`
		}
		resp, err := b.Reads.R().SetContext(ctx).SetBody(q).Post("/threads/search")
		if err := b.Check(resp, err, "count the threads whose run failed", &ids); err != nil {
			return 0, err
		}
		n += len(ids)
		if len(ids) < page {
			break
		}
	}
	return n, nil
}

// failedFacts reads an errored thread's state, or reuses what it said
// while the thread has not changed.
func (b *Backend) failedFacts(ctx context.Context, t *thread) (failedFacts, error) {
	b.mu.Lock()
	f, ok := b.failed[t.ThreadID]
	b.mu.Unlock()
	if ok && f.updated.Equal(t.UpdatedAt) {
		return f, nil
	}
	st, err := b.readState(ctx, t.ThreadID)
	if err != nil {
		return f, err
	}
	f = failedFacts{updated: t.UpdatedAt}
	f.held, f.ownFailed = b.heldInterrupts(t, st)
	var texts []string
	if b.python(ctx) {
		// The Python server keeps the failed run's error on the thread,
		// with the exception's name (a task's error is its text only, and
		// a run that failed outside a task leaves none): a thread's search
		// cannot select it, its own read has it.
		var full thread
		resp, err := b.Reads.R().SetContext(ctx).Get("/threads/" + url.PathEscape(t.ThreadID))
		if err := b.Check(resp, err, "read thread "+t.ThreadID, &full); err != nil {
			return f, err
		}
		t.Error = full.Error
	}
	if s := threadError(t.Error); s != "" {
		texts = append(texts, s)
	} else {
		for _, task := range st.Tasks {
			if s := taskError(task.Error); s != "" {
				texts = append(texts, s)
			}
		}
	}
	f.text = strings.Join(texts, "\n\n")
	if len(f.text) > maxErrorText {
		f.text = f.text[:maxErrorText] + fmt.Sprintf("\n… (%d more bytes: GET /threads/%s/state has them all)", len(f.text)-maxErrorText, t.ThreadID)
	}
	b.mu.Lock()
	b.failed[t.ThreadID] = f
	b.mu.Unlock()
	return f, nil
}

// heldInterrupts are the interrupts an errored thread's state still holds
// (their task has no result), marked Retry, and whether each one's own
// task is the one that failed.
func (b *Backend) heldInterrupts(t *thread, st *threadState) ([]client.Interrupt, []bool) {
	var out []client.Interrupt
	var own []bool
	for _, task := range st.Tasks {
		if task.answered() {
			continue
		}
		for i, w := range task.Interrupts {
			it := t.base(b.Server(), interruptID(w, t.ThreadID, task.ID, i), w.Value, w.payload())
			it.Retry = true
			out = append(out, it)
			own = append(own, !isNull(task.Error))
		}
	}
	return out, own
}

// taskError is a task's error as a person reads it. The server keeps it
// as a JSON string {"message", "name"}; a ZodError's message is its
// issues as JSON, written here one a line as "path: message".
func taskError(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if json.Unmarshal(raw, &s) != nil {
		return string(raw) // not a string: show it as the server sent it
	}
	var e struct {
		Name    string `json:"name"`
		Message string `json:"message"`
		Error   string `json:"error"`
	}
	if json.Unmarshal([]byte(s), &e) != nil || (e.Message == "" && e.Name == "") {
		return s
	}
	name := e.Name
	if name == "" {
		name = e.Error
	}
	msg := zodIssues(e.Message)
	switch {
	case name == "" || name == "Error" && msg != "":
		return msg
	case msg == "":
		return name
	}
	return name + ": " + msg
}

// threadError is the Python server's error of a thread's last run,
// {"error": exception name, "message": text}, as a person reads it; "" when
// the thread has none (and on the JS server, which does not send it).
func threadError(raw json.RawMessage) string {
	var e struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &e) != nil || (e.Error == "" && e.Message == "") {
		return ""
	}
	msg := pydanticIssues(e.Message)
	switch {
	case e.Error == "":
		return msg
	case msg == "":
		return e.Error
	}
	return e.Error + ": " + msg
}

// pydanticIssues writes a Pydantic ValidationError's message one issue a
// line, "location: message", without the error type and input it repeats
// and the link to Pydantic's docs; any other message is returned as it is.
//
//	2 validation errors for Choice
//	framework
//	  Input should be 'react', 'vue' or 'svelte' [type=literal_error, input_value='angular', input_type=str]
//	    For further information visit https://errors.pydantic.dev/2.14/v/literal_error
func pydanticIssues(msg string) string {
	lines := strings.Split(msg, "\n")
	if len(lines) < 3 || !strings.Contains(lines[0], " validation error") || !strings.Contains(lines[0], " for ") {
		return msg
	}
	var out []string
	loc := ""
	for _, l := range lines[1:] {
		switch {
		case strings.HasPrefix(l, "    "):
			// "For further information visit …"
		case strings.HasPrefix(l, "  "):
			text := strings.TrimSpace(l)
			if i := strings.LastIndex(text, " [type="); i > 0 && strings.HasSuffix(text, "]") {
				text = text[:i]
			}
			if loc != "" {
				text = loc + ": " + text
			}
			out = append(out, text)
		default:
			loc = strings.TrimSpace(l)
		}
	}
	if len(out) == 0 {
		return msg
	}
	return strings.Join(out, "\n")
}

// zodIssues writes a ZodError's message (a JSON list of issues) one issue
// a line; any other message is returned as it is.
func zodIssues(msg string) string {
	var issues []struct {
		Path    []any  `json:"path"`
		Message string `json:"message"`
	}
	if !strings.HasPrefix(strings.TrimSpace(msg), "[") || json.Unmarshal([]byte(msg), &issues) != nil || len(issues) == 0 {
		return msg
	}
	lines := make([]string, len(issues))
	for i, is := range issues {
		path := make([]string, len(is.Path))
		for j, p := range is.Path {
			path[j] = fmt.Sprint(p)
		}
		if len(path) > 0 {
			lines[i] = strings.Join(path, ".") + ": " + is.Message
		} else {
			lines[i] = is.Message
		}
	}
	return strings.Join(lines, "\n")
}

// held reports whether the errored thread's state still holds interrupt
// id (for Standing: a decision on it answers it again).
func (b *Backend) held(ctx context.Context, t *thread, id string) (bool, error) {
	st, err := b.readState(ctx, t.ThreadID)
	if err != nil {
		return false, err
	}
	its, _ := b.heldInterrupts(t, st)
	for _, it := range its {
		if it.ID == id {
			return true, nil
		}
	}
	return false, nil
}
