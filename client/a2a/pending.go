package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hitl-sh/hitl/client"
)

// pageSize and maxPages bound a listing: 100 tasks a page, 100 pages.
const (
	pageSize = 100
	maxPages = 100
	// maxRemembered bounds what is remembered of the questions read.
	maxRemembered = 10000
)

// Pending lists every question of every task waiting in input-required:
// those the agent lists (protocol 1.0's ListTasks, filtered on
// input-required, page by page) and the tasks named by id, newest first.
func (b *Backend) Pending(ctx context.Context) ([]client.Interrupt, error) {
	var tasks []task
	var unknown []string // named in Options.Tasks, and not known to the agent
	seen := map[string]bool{}
	if b.Lists(ctx) {
		listed, err := b.list(ctx)
		if err != nil {
			return nil, err
		}
		for _, t := range listed {
			seen[t.ID] = true
			tasks = append(tasks, t)
		}
	}
	for _, id := range b.namedTasks() {
		if seen[id] {
			continue
		}
		t, err := b.get(ctx, id)
		if isRPC(err, errTaskNotFound) {
			if b.given[id] {
				unknown = append(unknown, id)
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	var out []client.Interrupt
	for _, t := range tasks {
		if t.problem == "" && t.State != inputRequired {
			continue
		}
		qs, err := b.asked(ctx, t)
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			out = append(out, q.it)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].UpdatedAt.After(out[j].UpdatedAt) })
	if len(unknown) > 0 {
		// Said with the rest listed, as a source of the listing that
		// cannot be read: a typo in tasks: does not hide the inbox.
		sort.Strings(unknown)
		return out, &client.SourceDown{Source: "task " + strings.Join(unknown, ", ") + " (named in the profile's tasks: or --task)",
			Err: fmt.Errorf("the agent at %s knows no such task: check the id, or take it out of the profile's tasks", b.Server())}
	}
	return out, nil
}

// asked is what a waiting task asks (questions), or, where the task
// carries no question (LangGraph's /a2a lists its tasks without their
// interrupts), what its LangGraph thread asks, or one question saying that
// it cannot be shown.
func (b *Backend) asked(ctx context.Context, t task) ([]question, error) {
	graph := b.graphName()
	if qs := b.questions(t, graph); len(qs) > 0 {
		b.mu.Lock()
		if len(b.asking) > maxRemembered {
			// A long-lived process (the hub) forgets the oldest reads at
			// once: only "who answered" and the message shown before a
			// send of a question not listed again are lost.
			clear(b.asking)
			clear(b.askedBy)
		}
		for _, q := range qs {
			if q.msg != "" {
				b.askedBy[q.it.ID] = q.msg
			}
			b.asking[q.it.ID] = asking{task: t.ID, context: t.ContextID, q: q}
		}
		b.mu.Unlock()
		return qs, nil
	}
	if b.graph != nil && t.ContextID != "" {
		qs, err := b.threadQuestions(ctx, t, graph)
		if err != nil || len(qs) > 0 {
			return qs, err
		}
	}
	it := client.Interrupt{ID: derivedID(t.ID, "unseen", t.Timestamp.String()), ThreadID: t.ID, GraphID: graph,
		CreatedAt: t.Timestamp, UpdatedAt: t.Timestamp, Server: b.Server()}
	it.Payload = client.Normalized(client.Payload{Schema: client.SchemaRaw,
		Title:       "The agent waits for input; the task does not say what it asks",
		Description: unseenWhy(b.graph != nil),
		Allowed:     []client.DecisionType{client.Respond}})
	it.WithValue(nil)
	return []question{{it: it, producer: plain}}, nil
}

func unseenWhy(langgraph bool) string {
	if langgraph {
		return "The task is in input-required with no status message and no interrupt artifact, and its LangGraph thread holds no interrupt. A respond is sent as a text part."
	}
	return "The task is in input-required with no status message and no interrupt artifact (LangGraph's /a2a endpoint lists its tasks so: give hitl the LangGraph server, langgraph_url in the profile or HITL_LANGGRAPH_URL, to read the question from the thread). A respond is sent as a text part."
}

func (b *Backend) graphName() string {
	b.cardMu.Lock()
	defer b.cardMu.Unlock()
	if b.card.Name != "" {
		return b.card.Name
	}
	return "a2a"
}

// list pages through ListTasks on input-required.
func (b *Backend) list(ctx context.Context) ([]task, error) {
	var out []task
	token := ""
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("list the waiting tasks: the agent at %s still had more after %d pages of %d", b.Server(), maxPages, pageSize)
		}
		params := map[string]any{"status": "TASK_STATE_INPUT_REQUIRED", "pageSize": pageSize, "includeArtifacts": true}
		if token != "" {
			params["pageToken"] = token
		}
		res, _, err := b.call(ctx, b.Reads, "list the waiting tasks", "ListTasks", params)
		if err != nil {
			return nil, err
		}
		var l taskList
		if err := l.DecodeJSON(res); err != nil {
			return nil, fmt.Errorf("list the waiting tasks: the agent at %s answered with something that is not a list of tasks: %v; is --url its JSON-RPC endpoint?", b.Server(), err)
		}
		out = append(out, l.tasks...)
		if l.next == "" || l.next == token {
			return out, nil
		}
		token = l.next
	}
}

// taskList is ListTasks' result, read one task at a time.
type taskList struct {
	tasks []task
	next  string
}

func (l *taskList) DecodeJSON(body []byte) error {
	problems := client.Fields(body, func(key string, v json.RawMessage) error {
		switch key {
		case "tasks":
			ts, err := client.List(v, decodeTask)
			l.tasks = ts
			return err
		case "nextPageToken":
			return client.Into(v, &l.next)
		}
		return nil
	})
	return problems.Err()
}

// get reads one task.
func (b *Backend) get(ctx context.Context, id string) (task, error) {
	res, _, err := b.call(ctx, b.Reads, "read task "+id, b.method(ctx, "get"), map[string]any{"id": id})
	if err != nil {
		return task{}, err
	}
	t, _ := decodeTask(res)
	return t, nil
}

// NotWaitingError is a task the agent knows that waits for no answer: it
// was answered (here or elsewhere), finished, failed or was canceled.
type NotWaitingError struct {
	Task  string
	State string // in 0.3's words: "completed", "working", "canceled", …
}

func (e *NotWaitingError) Error() string {
	return fmt.Sprintf("task %s waits for no answer: it is %s", e.Task, e.State)
}

// Task reads one task by its exact id (hitl show TASK, hitl approve
// TASK): the questions it asks; none when the agent does not know it, and
// a *NotWaitingError when the task does not wait in input-required. This
// process's later listings read it too (an agent of protocol 0.3 lists
// nothing).
func (b *Backend) Task(ctx context.Context, id string) ([]client.Interrupt, error) {
	t, err := b.get(ctx, id)
	if isRPC(err, errTaskNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if t.problem == "" && t.State != inputRequired {
		return nil, &NotWaitingError{Task: id, State: t.State}
	}
	b.remember(id)
	qs, err := b.asked(ctx, t)
	if err != nil {
		return nil, err
	}
	out := make([]client.Interrupt, len(qs))
	for i, q := range qs {
		out[i] = q.it
	}
	return out, nil
}
