// Package langgraph speaks to a LangGraph Agent Server (`langgraph dev`,
// `langgraphjs dev`, LangSmith deployments): it finds interrupted threads,
// reads their interrupts, and resumes them by interrupt id.
package langgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/transport"
)

// pageSize is how many threads one search asks for (the server allows 1..1000).
const pageSize = 100

// Options configure a Backend.
type Options struct {
	URL         string
	APIKey      string // sent as X-Api-Key
	BearerToken string // sent as Authorization: Bearer
	Headers     map[string]string
	// Graph and Assistant filter what is listed (thread metadata graph_id,
	// assistant_id); Metadata adds more metadata filters.
	Graph     string
	Assistant string
	Metadata  map[string]string
	// Timeout bounds each request.
	Timeout time.Duration
	// Follow bounds how long Send waits for the run it started to end.
	Follow             time.Duration
	InsecureSkipVerify bool
	// PageSize is how many threads one search asks for (default 100).
	PageSize int
	// ReadRetries is how often a failed read is retried, with backoff
	// (0: the default, 3; negative: never).
	ReadRetries int
}

// Backend is a LangGraph Agent Server.
type Backend struct {
	opts Options
	*transport.Conn
}

// New returns a backend for the server at opts.URL.
func New(opts Options) (*Backend, error) {
	if opts.PageSize <= 0 || opts.PageSize > 1000 {
		opts.PageSize = pageSize
	}
	if opts.Follow <= 0 {
		opts.Follow = 60 * time.Second
	}
	c, err := transport.New(transport.Options{URL: opts.URL, APIKey: opts.APIKey, BearerToken: opts.BearerToken, Headers: opts.Headers,
		Timeout: opts.Timeout, Long: opts.Follow, InsecureSkipVerify: opts.InsecureSkipVerify, ReadRetries: opts.ReadRetries,
		Hint: "is `langgraph dev` running there?"})
	if err != nil {
		return nil, err
	}
	return &Backend{opts: opts, Conn: c}, nil
}

// Pending lists the pending interrupts of every interrupted thread that
// matches the filters, newest thread first.
func (b *Backend) Pending(ctx context.Context) ([]client.Interrupt, error) {
	threads, err := b.search(ctx, nil)
	if err != nil {
		return nil, err
	}
	var out []client.Interrupt
	for i := range threads {
		its, err := b.threadInterrupts(ctx, &threads[i])
		if err != nil {
			return nil, err
		}
		out = append(out, its...)
	}
	return out, nil
}

// search pages through /threads/search; ids limits it to those threads.
func (b *Backend) search(ctx context.Context, ids []string) ([]thread, error) {
	meta := map[string]any{}
	for k, v := range b.opts.Metadata {
		meta[k] = v
	}
	if b.opts.Graph != "" {
		meta["graph_id"] = b.opts.Graph
	}
	if b.opts.Assistant != "" {
		meta["assistant_id"] = b.opts.Assistant
	}
	var all []thread
	size := b.opts.PageSize
	for offset := 0; ; offset += size {
		body := map[string]any{
			"status":     "interrupted",
			"limit":      size,
			"offset":     offset,
			"sort_by":    "updated_at",
			"sort_order": "desc",
			"select":     []string{"thread_id", "status", "metadata", "created_at", "updated_at", "interrupts"},
		}
		if len(meta) > 0 {
			body["metadata"] = meta
		}
		if ids != nil {
			body["ids"] = ids
			delete(body, "metadata")
			delete(body, "status")
		}
		var page []thread
		resp, err := b.Reads.R().SetContext(ctx).SetBody(body).Post("/threads/search")
		if err := b.Check(resp, err, "list interrupted threads", &page); err != nil {
			return nil, err
		}
		all = append(all, page...)
		total, _ := strconv.Atoi(resp.Header().Get("X-Pagination-Total"))
		if len(page) < size || (total > 0 && offset+len(page) >= total) {
			return all, nil
		}
	}
}

// threadInterrupts reads a thread's pending interrupts. A thread that is
// interrupted but lists no interrupt value is read again through its state:
// its tasks may carry them, or it stopped at a static breakpoint.
func (b *Backend) threadInterrupts(ctx context.Context, t *thread) ([]client.Interrupt, error) {
	if t.Status != "interrupted" {
		return nil, nil
	}
	if t.Interrupts.count() > 0 {
		return t.interrupts(b.Server()), nil
	}
	var st threadState
	resp, err := b.Reads.R().SetContext(ctx).Get("/threads/" + url.PathEscape(t.ThreadID) + "/state")
	if err := b.Check(resp, err, "read the state of thread "+t.ThreadID, &st); err != nil {
		return nil, err
	}
	var out []client.Interrupt
	for _, task := range st.Tasks {
		for i, w := range task.Interrupts {
			out = append(out, t.base(b.Server(), interruptID(w, t.ThreadID, task.ID, i), w.Value, client.Parse(w.Value)))
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	return []client.Interrupt{t.base(b.Server(), breakpointID(t.ThreadID, st.Checkpoint.CheckpointID), nil, client.Breakpoint(st.Next))}, nil
}

// stillPending re-reads the thread and reports whether interrupt id is
// still waiting there.
func (b *Backend) stillPending(ctx context.Context, threadID, id string) (bool, []string, error) {
	threads, err := b.search(ctx, []string{threadID})
	if err != nil {
		return false, nil, err
	}
	var ids []string
	for i := range threads {
		if threads[i].ThreadID != threadID {
			continue
		}
		its, err := b.threadInterrupts(ctx, &threads[i])
		if err != nil {
			return false, nil, err
		}
		for _, it := range its {
			ids = append(ids, it.ID)
		}
	}
	for _, x := range ids {
		if x == id {
			return true, ids, nil
		}
	}
	return false, ids, nil
}

// Send resumes one interrupt: it re-reads the thread first and refuses when
// the interrupt is gone, sends once, and follows the run to its end (or
// until Options.Follow has passed).
func (b *Backend) Send(ctx context.Context, it client.Interrupt, r client.Resume) (client.Outcome, error) {
	pending, _, err := b.stillPending(ctx, it.ThreadID, it.ID)
	if err != nil {
		return client.Outcome{}, err
	}
	if !pending {
		return client.Outcome{}, client.ErrAlreadyHandled
	}
	assistant := it.AssistantID
	if assistant == "" {
		assistant = it.GraphID
	}
	if assistant == "" {
		assistant = b.opts.Assistant
	}
	if assistant == "" {
		assistant = b.opts.Graph
	}
	if assistant == "" {
		return client.Outcome{}, fmt.Errorf("thread %s names no assistant or graph in its metadata: pass --assistant (or --graph) to say which one runs it", it.ThreadID)
	}
	body := map[string]any{"assistant_id": assistant, "multitask_strategy": "reject"}
	if r.Continue {
		body["input"] = nil
	} else {
		body["command"] = map[string]any{"resume": map[string]json.RawMessage{it.ID: r.Value}}
	}
	var created run
	resp, err := b.Writes.R().SetContext(ctx).SetBody(body).Post("/threads/" + url.PathEscape(it.ThreadID) + "/runs")
	if resp != nil && (resp.StatusCode() == http.StatusConflict || resp.StatusCode() == http.StatusUnprocessableEntity) {
		return client.Outcome{}, client.ErrBusy
	}
	if cerr := b.Check(resp, err, "resume thread "+it.ThreadID, &created); cerr != nil {
		// A transport error other than a refused connection may have
		// happened after the server took the request.
		maybe := err != nil && !transport.IsRefused(err)
		return client.Outcome{}, &transport.SendError{Err: cerr, MaybeSent: maybe}
	}
	return b.follow(ctx, it.ThreadID, created.RunID), nil
}

// follow waits for run runID to end and reports how it ended. Its errors are
// reported inside the outcome: the resume itself was accepted.
func (b *Backend) follow(ctx context.Context, threadID, runID string) client.Outcome {
	out := client.Outcome{RunID: runID, Status: client.Running}
	ctx, cancel := context.WithTimeout(ctx, b.opts.Follow)
	defer cancel()
	var joined map[string]json.RawMessage
	resp, err := b.Long.R().SetContext(ctx).Get("/threads/" + url.PathEscape(threadID) + "/runs/" + url.PathEscape(runID) + "/join")
	if err := b.Check(resp, err, "follow run "+runID, &joined); err != nil {
		out.Error = err.Error()
		return out
	}
	var r run
	resp, err = b.Reads.R().SetContext(ctx).Get("/threads/" + url.PathEscape(threadID) + "/runs/" + url.PathEscape(runID))
	if err := b.Check(resp, err, "read run "+runID, &r); err != nil {
		out.Error = err.Error()
		return out
	}
	_, ids, err := b.stillPending(ctx, threadID, "")
	if err == nil {
		out.Pending = ids
	}
	out.Reply = lastAIMessage(joined["messages"])
	switch {
	case r.Status == "error" || r.Status == "timeout" || joined["__error__"] != nil:
		out.Status = client.Failed
		out.Error = runError(joined["__error__"], r.Status)
	case len(out.Pending) > 0 || r.Status == "interrupted":
		out.Status = client.PausedAgain
	case r.Status == "success":
		out.Status = client.Finished
	}
	return out
}

// runError unwraps the server's {"error","message"} (whose message may itself
// be such an object, as a JSON string).
func runError(raw json.RawMessage, status string) string {
	var e struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if raw == nil || json.Unmarshal(raw, &e) != nil {
		return "the run ended with status " + status
	}
	for i := 0; i < 3; i++ {
		var inner struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		if json.Unmarshal([]byte(e.Message), &inner) != nil || inner.Message == "" {
			break
		}
		e = inner
	}
	if e.Error != "" && !strings.HasPrefix(e.Message, e.Error) {
		return e.Error + ": " + e.Message
	}
	return e.Message
}

// Conversation reads the thread's messages (the `messages` key of its state,
// as LangChain agents keep it). A graph without messages has none.
func (b *Backend) Conversation(ctx context.Context, threadID string) ([]client.Message, error) {
	var st struct {
		Values struct {
			Messages []struct {
				Type      string          `json:"type"`
				Role      string          `json:"role"`
				Name      string          `json:"name"`
				Content   json.RawMessage `json:"content"`
				ToolCalls []struct {
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"tool_calls"`
			} `json:"messages"`
		} `json:"values"`
	}
	resp, err := b.Reads.R().SetContext(ctx).Get("/threads/" + url.PathEscape(threadID) + "/state")
	if err := b.Check(resp, err, "read the conversation of thread "+threadID, &st); err != nil {
		return nil, err
	}
	var out []client.Message
	for _, m := range st.Values.Messages {
		role := m.Type
		if role == "" {
			role = m.Role
		}
		if m.Name != "" && role == "tool" {
			role = "tool " + m.Name
		}
		msg := client.Message{Role: role, Content: contentText(m.Content)}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, tc.Name+" "+string(tc.Args))
		}
		out = append(out, msg)
	}
	return out, nil
}

// contentText flattens message content: a string, or a list of blocks whose
// text parts are joined.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, b := range blocks {
			if b.Text != "" {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

// lastAIMessage is the text of the last AI message of a messages list.
func lastAIMessage(raw json.RawMessage) string {
	var msgs []struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &msgs) != nil {
		return ""
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Type == "ai" {
			if text := contentText(msgs[i].Content); strings.TrimSpace(text) != "" {
				return text
			}
		}
	}
	return ""
}
