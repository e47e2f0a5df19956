// Package a2a reviews the tasks of A2A agents (the Agent2Agent protocol)
// that wait in input-required: a human must answer before the agent goes
// on. It speaks JSON-RPC over HTTP, protocol 1.0 (SendMessage, GetTask,
// ListTasks, TASK_STATE_*) and 0.3 (message/send, tasks/get,
// input-required, parts with a kind), and reads the question in the shapes
// the producers put it in: a plain text question, Strands' interrupts, and
// LangGraph's interrupt artifact (docs/backends.md).
//
// Each waiting question is one client.Interrupt whose ThreadID is the task
// id; the answer is one message on the task, sent once.
package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-resty/resty/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/inert"
)

// Options configure a Backend.
type Options struct {
	// URL is the agent's JSON-RPC endpoint (its card is read at
	// URL/.well-known/agent-card.json).
	transport.Options
	// Tasks are task ids to look at besides those the agent lists: an
	// agent of protocol 0.3 has no list, so its tasks must be named.
	Tasks []string
	// Protocol forces "1.0" or "0.3"; "" reads it from the agent card.
	Protocol string
	// LangGraph is the base URL of a LangGraph Agent Server whose /a2a
	// endpoint URL is: its tasks carry no question, which is read from the
	// thread's state there. "" when URL is not such an endpoint.
	LangGraph string
	// Follow bounds how long Follow watches the task after an answer.
	Follow time.Duration
}

// Backend is one A2A agent.
type Backend struct {
	opts Options
	*transport.Conn
	// graph reads LangGraph's thread state (LangGraph set), else nil.
	graph *transport.Conn

	cardMu   sync.Mutex
	protocol string // "1.0" or "0.3", once known ("" until the card is read)
	card     card
	ids      atomic.Int64

	mu    sync.Mutex
	named map[string]bool // tasks to read by id (Options.Tasks and those met)
	// given are the tasks Options.Tasks names (a profile's tasks:,
	// --task): one the agent does not know is said, not dropped.
	given map[string]bool
	// before is the length of a task's history when a decision's question
	// was read, by decision id: Verify looks for other answers after it.
	before map[string]int
	// askedBy is the agent's message that asked each question read, by
	// interrupt id: who answered it is the user message after it.
	askedBy map[string]string
	// asking is what the listing read of each question, by interrupt id
	// (Message).
	asking map[string]asking
}

// New returns a backend for the agent at opts.URL.
func New(opts Options) (*Backend, error) {
	if opts.Follow <= 0 {
		opts.Follow = 30 * time.Second
	}
	if opts.Hint == "" {
		opts.Hint = "is the A2A agent running there? --url is its JSON-RPC endpoint"
	}
	switch opts.Protocol {
	case "", v1, v03:
	default:
		return nil, fmt.Errorf("A2A protocol %q is not known; use 1.0 or 0.3", opts.Protocol)
	}
	c, err := transport.New(opts.Options)
	if err != nil {
		return nil, err
	}
	b := &Backend{opts: opts, Conn: c, named: map[string]bool{}, given: map[string]bool{}, before: map[string]int{}, askedBy: map[string]string{}, asking: map[string]asking{}}
	for _, t := range opts.Tasks {
		if t = strings.TrimSpace(t); t != "" {
			b.named[t], b.given[t] = true, true
		}
	}
	if opts.LangGraph != "" {
		g := opts.Options
		g.URL = opts.LangGraph
		if b.graph, err = transport.New(g); err != nil {
			return nil, fmt.Errorf("the LangGraph server of the A2A endpoint: %w", err)
		}
	}
	return b, nil
}

const (
	v1  = "1.0"
	v03 = "0.3"
)

// card is what hitl reads of an agent card.
type card struct {
	Name               string `json:"name"`
	ProtocolVersion    string `json:"protocolVersion"` // 0.3
	SupportedInterface []struct {
		ProtocolVersion string `json:"protocolVersion"`
		ProtocolBinding string `json:"protocolBinding"`
	} `json:"supportedInterfaces"` // 1.0
}

// Protocol is the protocol version hitl speaks to the agent: the one the
// options force, else 1.0 when the card offers it, else 0.3 when the card
// says only that, else 1.0. A card that could not be read (the agent not
// up yet) is read again at the next call.
func (b *Backend) Protocol(ctx context.Context) string {
	b.cardMu.Lock()
	defer b.cardMu.Unlock()
	if b.protocol != "" {
		return b.protocol
	}
	var c card
	resp, err := b.Reads.R().SetContext(ctx).Get("/.well-known/agent-card.json")
	if cerr := b.Check(resp, err, "read the agent card", &c); cerr != nil {
		if err == nil && resp != nil && resp.StatusCode() >= 400 && resp.StatusCode() < 500 {
			// The agent answered that it has no card (or not for hitl):
			// 1.0 unless told otherwise, and no need to ask again.
			b.protocol = v1
			if b.opts.Protocol != "" {
				b.protocol = b.opts.Protocol
			}
			return b.protocol
		}
		if b.opts.Protocol != "" {
			return b.opts.Protocol
		}
		return v1
	}
	b.card, b.protocol = c, b.opts.Protocol
	if b.protocol != "" {
		return b.protocol
	}
	b.protocol = v1
	offers1 := false
	for _, i := range c.SupportedInterface {
		offers1 = offers1 || strings.HasPrefix(i.ProtocolVersion, "1.")
	}
	if !offers1 && (len(c.SupportedInterface) > 0 || strings.HasPrefix(c.ProtocolVersion, "0.")) {
		b.protocol = v03
	}
	return b.protocol
}

// Lists reports whether the agent can list its waiting tasks (protocol
// 1.0's ListTasks); an agent that cannot shows only the tasks named with
// --task.
func (b *Backend) Lists(ctx context.Context) bool { return b.Protocol(ctx) == v1 }

// method names in each protocol.
var methods = map[string][2]string{
	"send": {"SendMessage", "message/send"},
	"get":  {"GetTask", "tasks/get"},
	"list": {"ListTasks", ""},
}

func (b *Backend) method(ctx context.Context, m string) string {
	if b.Protocol(ctx) == v03 {
		return methods[m][1]
	}
	return methods[m][0]
}

// rpcError is a JSON-RPC error the agent answered with.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string {
	return fmt.Sprintf("the agent answered error %d: %s", e.Code, inert.Line(clip(e.Message)))
}

// The A2A errors hitl acts on.
const (
	errTaskNotFound = -32001
	errNotCancel    = -32002
	errUnsupported  = -32004 // a message to a task in a terminal state
)

func clip(s string) string {
	if r := []rune(s); len(r) > 300 {
		return string(r[:300]) + "…"
	}
	return s
}

// envelope is a JSON-RPC answer, read member by member: a result nested
// past encoding/json's depth (one poisoned task) is the result's reader's
// to judge, not a refusal of the whole answer.
type envelope struct {
	Result json.RawMessage
	Error  *rpcError
}

func (e *envelope) DecodeJSON(body []byte) error {
	problems := client.Fields(body, func(key string, v json.RawMessage) error {
		switch key {
		case "result":
			e.Result = v
		case "error":
			if string(v) != "null" {
				e.Error = &rpcError{}
				return client.Into(v, e.Error)
			}
		}
		return nil
	})
	if err := problems.Err(); err != nil {
		return err
	}
	if e.Result == nil && e.Error == nil {
		return errors.New("not a JSON-RPC answer (no result, no error)")
	}
	return nil
}

// call posts one JSON-RPC request with c and returns its result. An error
// the agent answered with is an *rpcError (nothing was taken); maybe
// reports, for any other error, whether the request may have been acted
// on (a broken connection, a gateway's 5xx, an answer cut short).
func (b *Backend) call(ctx context.Context, c *resty.Client, what, method string, params any) (res json.RawMessage, maybe bool, err error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": b.ids.Add(1), "method": method, "params": params})
	if err != nil {
		return nil, false, err
	}
	req := c.R().SetContext(ctx).SetHeader("Content-Type", "application/json").SetBody(body)
	if b.Protocol(ctx) == v1 {
		req.SetHeader("A2A-Version", v1)
	}
	resp, herr := req.Post("")
	var env envelope
	if cerr := b.Check(resp, herr, what, &env); cerr != nil {
		return nil, transport.MaybeTaken(resp, herr), cerr
	}
	if env.Error != nil {
		env.Error.Message = b.Redact(env.Error.Message)
		return nil, false, fmt.Errorf("%s: %w", what, env.Error)
	}
	if len(env.Result) == 0 || string(env.Result) == "null" {
		return nil, true, fmt.Errorf("%s: the agent at %s answered without a result; is --url its JSON-RPC endpoint?", what, b.Server())
	}
	return env.Result, false, nil
}

func isRPC(err error, code int) bool {
	var e *rpcError
	return errors.As(err, &e) && e.Code == code
}

// remember adds a task to those read by id (a task hitl answered, or
// found, keeps being read on an agent that cannot list).
func (b *Backend) remember(id string) {
	b.mu.Lock()
	b.named[id] = true
	b.mu.Unlock()
}

func (b *Backend) namedTasks() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]string, 0, len(b.named))
	for t := range b.named {
		out = append(out, t)
	}
	return out
}
