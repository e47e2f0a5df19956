package client

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fixtures named middleware-js-*, inbox-*, prompt-*, questions and raw were
// captured from the real langgraphjs dev server running testserver/graphs;
// middleware-py* follow the Python middleware's TypedDicts (no Python
// server runs here).
func fixture(t *testing.T, name string) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseShapes(t *testing.T) {
	tests := []struct {
		fixture   string
		schema    Schema
		title     string
		actions   []string
		allowed   [][]DecisionType // per action, or the interrupt's own
		questions int
	}{
		{"middleware-js-email", SchemaMiddleware, "Review tool call send_email", []string{"send_email"}, [][]DecisionType{{Approve, Edit, Reject}}, 0},
		{"middleware-js-ops", SchemaMiddleware, "Review 2 tool calls: delete_records, notify", []string{"delete_records", "notify"}, [][]DecisionType{{Approve, Reject}, {Approve, Edit, Reject}}, 0},
		{"middleware-py", SchemaMiddleware, "Review 2 tool calls: send_email, send_email", []string{"send_email", "send_email"}, [][]DecisionType{{Approve, Edit, Reject, Respond}, {Approve, Edit, Reject, Respond}}, 0},
		{"middleware-py-prerelease", SchemaMiddleware, "Review tool call run_sql", []string{"run_sql"}, [][]DecisionType{{Approve, Edit, Reject}}, 0},
		{"inbox-list", SchemaAgentInbox, "Review tool call post_tweet", []string{"post_tweet"}, [][]DecisionType{{Approve, Edit, Respond, Ignore}}, 0},
		{"inbox-single", SchemaAgentInbox, "Review tool call post_tweet", []string{"post_tweet"}, [][]DecisionType{{Approve, Edit, Respond, Ignore}}, 0},
		{"questions", SchemaQuestions, "The agent needs your input on the following:", nil, [][]DecisionType{{Approve, Respond, Reject}}, 2},
		{"prompt-string", SchemaPrompt, "Customer not found. What is the customer's email address?", nil, [][]DecisionType{{Respond}}, 0},
		{"prompt-object", SchemaPrompt, "I found two addresses for ACME. Which one should I use?", nil, [][]DecisionType{{Respond}}, 0},
		{"raw", SchemaRaw, "Interrupt with a payload of no known shape", nil, [][]DecisionType{{Respond}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			p := Parse(fixture(t, tt.fixture))
			if p.Schema != tt.schema || p.Title != tt.title {
				t.Fatalf("got %s %q, want %s %q", p.Schema, p.Title, tt.schema, tt.title)
			}
			if len(p.Actions) != len(tt.actions) || len(p.Questions) != tt.questions {
				t.Fatalf("got %d actions, %d questions", len(p.Actions), len(p.Questions))
			}
			for i, name := range tt.actions {
				if p.Actions[i].Name != name {
					t.Errorf("action %d: %q, want %q", i, p.Actions[i].Name, name)
				}
			}
			for i := range tt.allowed {
				if got := p.AllowedAt(i); !equalTypes(got, tt.allowed[i]) {
					t.Errorf("slot %d allows %v, want %v", i, got, tt.allowed[i])
				}
			}
		})
	}
}

func TestArgsKeepBytes(t *testing.T) {
	p := Parse(fixture(t, "middleware-py"))
	got := string(p.Actions[0].Args)
	// Key order, 1.10 and a 20-digit integer survive as written.
	want := `{"to": "a@example.com", "subject": "Hi", "amount": 1.10, "big": 12345678901234567890}`
	if got != want {
		t.Fatalf("args = %s\nwant   %s", got, want)
	}
}

func TestParseOddValues(t *testing.T) {
	for _, v := range []string{``, `null`, `42`, `[]`, `[1,2]`, `{"action_requests": 5}`, `{"actionRequests": []}`,
		`{"questions": "not a list"}`, `{"action_request": null}`, `[{"action_request": {"action": 3}}]`, `{"hitl_prompt": {"nested": true}}`} {
		p := Parse(json.RawMessage(v))
		if p.Schema == "" || p.Slots() != 1 && len(p.Actions) == 0 {
			t.Errorf("%s: schema %q slots %d", v, p.Schema, p.Slots())
		}
	}
	if p := Parse(json.RawMessage(`{"hitl_prompt": {"nested": true}}`)); p.Schema != SchemaPrompt || p.Title != `{"nested": true}` {
		t.Errorf("a non-string prompt is shown as its JSON: %+v", p)
	}
}

// TestEncode asserts the exact bytes each shape's graph receives.
func TestEncode(t *testing.T) {
	tests := []struct {
		name      string
		fixture   string
		decisions []Decision
		dialect   EditDialect
		want      string
	}{
		{"js approve", "middleware-js-email", []Decision{{Type: Approve}}, "",
			`{"decisions":[{"type":"approve"}]}`},
		{"js edit answers in camelCase", "middleware-js-email", []Decision{{Type: Edit, Args: json.RawMessage(`{"to": "x@example.com", "n": 1.50}`)}}, "",
			`{"decisions":[{"type":"edit","editedAction":{"name":"send_email","args":{"to":"x@example.com","n":1.50}}}]}`},
		{"js reject with message", "middleware-js-email", []Decision{{Type: Reject, Message: "wrong <customer> & co"}}, "",
			`{"decisions":[{"type":"reject","message":"wrong <customer> & co"}]}`},
		{"js mixed", "middleware-js-ops", []Decision{{Type: Reject, Message: "no"}, {Type: Edit, Args: json.RawMessage(`{"channel":"#ops","text":"skipped"}`)}}, "",
			`{"decisions":[{"type":"reject","message":"no"},{"type":"edit","editedAction":{"name":"notify","args":{"channel":"#ops","text":"skipped"}}}]}`},
		{"py edit with rename", "middleware-py", []Decision{{Type: Edit, Name: "draft_email", Args: json.RawMessage(`{"to":"a@example.com"}`)}, {Type: Respond, Message: "ask first"}}, "",
			`{"decisions":[{"type":"edit","edited_action":{"name":"draft_email","args":{"to":"a@example.com"}}},{"type":"respond","message":"ask first"}]}`},
		{"py prerelease edit uses arguments", "middleware-py-prerelease", []Decision{{Type: Edit, Args: json.RawMessage(`{"query":"SELECT 1"}`)}}, "",
			`{"decisions":[{"type":"edit","edited_action":{"name":"run_sql","arguments":{"query":"SELECT 1"}}}]}`},
		{"edited_args dialect", "middleware-js-email", []Decision{{Type: Edit, Args: json.RawMessage(`{"to":"y@example.com"}`)}}, DialectEditedArgs,
			`{"decisions":[{"type":"edit","edited_args":{"to":"y@example.com"}}]}`},
		{"inbox accept", "inbox-list", []Decision{{Type: Approve}}, "",
			`[{"type":"accept","args":null}]`},
		{"inbox edit", "inbox-list", []Decision{{Type: Edit, Args: json.RawMessage(`{"text":"v2 is out"}`)}}, "",
			`[{"type":"edit","args":{"action":"post_tweet","args":{"text":"v2 is out"}}}]`},
		{"inbox response", "inbox-list", []Decision{{Type: Respond, Message: "tone it down"}}, "",
			`[{"type":"response","args":"tone it down"}]`},
		{"inbox ignore", "inbox-list", []Decision{{Type: Ignore}}, "",
			`[{"type":"ignore","args":null}]`},
		{"inbox single object answered with one", "inbox-single", []Decision{{Type: Approve}}, "",
			`{"type":"accept","args":null}`},
		{"questions approve", "questions", []Decision{{Type: Approve}}, "",
			`{"decision":"approve"}`},
		{"questions feedback and answers", "questions", []Decision{{Type: Respond, Message: "Use React and yes, include tests", Answers: []string{"React", "Yes"}}}, "",
			`{"decision":"edit","feedback":"Use React and yes, include tests","answers":["React","Yes"]}`},
		{"questions reject carries reason and feedback", "questions", []Decision{{Type: Reject, Message: "out of scope"}}, "",
			`{"decision":"reject","feedback":"out of scope","reason":"out of scope"}`},
		{"prompt reply", "prompt-string", []Decision{{Type: Respond, Message: "jane@example.com"}}, "",
			`"jane@example.com"`},
		{"raw text", "raw", []Decision{{Type: Respond, Message: "ok"}}, "",
			`"ok"`},
		{"raw json", "raw", []Decision{{Type: Respond, Value: json.RawMessage(`{"approved":true,"limit":50}`)}}, "",
			`{"approved":true,"limit":50}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Parse(fixture(t, tt.fixture))
			r, err := Encode(&p, tt.decisions, EncodeOptions{Dialect: tt.dialect})
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Value) != tt.want {
				t.Fatalf("resume = %s\nwant     %s", r.Value, tt.want)
			}
		})
	}
}

func TestEncodeBreakpointContinues(t *testing.T) {
	p := Breakpoint([]string{"act"})
	if p.Title != "Paused before act" {
		t.Errorf("title %q", p.Title)
	}
	r, err := Encode(&p, []Decision{{Type: Approve}}, EncodeOptions{})
	if err != nil || !r.Continue || r.Value != nil {
		t.Fatalf("got %+v, %v", r, err)
	}
}

func TestEncodeRefuses(t *testing.T) {
	tests := []struct {
		name       string
		fixture    string
		decisions  []Decision
		notAllowed bool
		reason     string
	}{
		{"edit where only approve/reject", "middleware-js-ops", []Decision{{Type: Edit, Args: json.RawMessage(`{}`)}, {Type: Approve}}, true, `action 1: "edit" is not allowed here; allowed: approve, reject`},
		{"respond on JS middleware", "middleware-js-email", []Decision{{Type: Respond, Message: "x"}}, true, "allowed: approve, edit, reject"},
		{"too few decisions", "middleware-js-ops", []Decision{{Type: Approve}}, false, "takes 2 decision(s)"},
		{"args not JSON", "middleware-js-email", []Decision{{Type: Edit, Args: json.RawMessage("{\n \"to\": }")}}, false, "not valid JSON at line 2, column 8"},
		{"args not an object", "middleware-js-email", []Decision{{Type: Edit, Args: json.RawMessage(`[1]`)}}, false, "must be a JSON object"},
		{"args break the schema", "middleware-js-refund", []Decision{{Type: Edit, Args: json.RawMessage(`{"order_id":"A-1001","amount":150,"currency":"EUR"}`)}}, false, "at $.amount: must be at most 100 (got 150)"},
		{"args miss a required key", "middleware-py-prerelease", []Decision{{Type: Edit, Args: json.RawMessage(`{}`)}}, false, "missing property 'query'"},
		{"questions reject needs a reason", "questions", []Decision{{Type: Reject}}, false, "needs a message"},
		{"questions feedback needs text", "questions", []Decision{{Type: Respond, Message: "  "}}, false, "needs a message"},
		{"prompt cannot be approved", "prompt-string", []Decision{{Type: Approve}}, true, "allowed: respond"},
		{"inbox cannot be rejected", "inbox-list", []Decision{{Type: Reject}}, true, "allowed: approve, edit, respond, ignore"},
		{"raw value must be JSON", "raw", []Decision{{Type: Respond, Value: json.RawMessage(`{nope`)}}, false, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Parse(fixture(t, tt.fixture))
			_, err := Encode(&p, tt.decisions, EncodeOptions{})
			if err == nil {
				t.Fatal("encoded; want a refusal")
			}
			var na *NotAllowedError
			if errors.As(err, &na) != tt.notAllowed {
				t.Errorf("NotAllowedError = %v, want %v (%v)", !tt.notAllowed, tt.notAllowed, err)
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("error %q does not say %q", err, tt.reason)
			}
		})
	}
}

func TestMissingReviewConfigAllowsNothing(t *testing.T) {
	p := Parse(json.RawMessage(`{"action_requests":[{"name":"x","args":{}}],"review_configs":[]}`))
	if p.Schema != SchemaMiddleware || len(p.Actions[0].Allowed) != 0 {
		t.Fatalf("%+v", p)
	}
	_, err := Encode(&p, []Decision{{Type: Approve}}, EncodeOptions{})
	if err == nil || !strings.Contains(err.Error(), "allows no decision") {
		t.Fatalf("err = %v", err)
	}
}

func FuzzParseEncode(f *testing.F) {
	for _, name := range []string{"middleware-js-ops", "middleware-py", "inbox-list", "questions", "prompt-object", "raw", "escape"} {
		b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "approve", `{"a":1}`)
	}
	f.Fuzz(func(t *testing.T, value []byte, decision, args string) {
		p := Parse(value)
		if p.Schema == "" {
			t.Fatal("no schema")
		}
		ds := make([]Decision, p.Slots())
		for i := range ds {
			ds[i] = Decision{Type: DecisionType(decision), Args: json.RawMessage(args), Message: "m"}
		}
		r, err := Encode(&p, ds, EncodeOptions{})
		if err == nil && !r.Continue && !json.Valid(r.Value) {
			t.Fatalf("encoded invalid JSON %q", r.Value)
		}
	})
}

func equalTypes(a, b []DecisionType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// BenchmarkParse1MB parses a middleware interrupt of about 1 MB (README: speed).
func BenchmarkParse1MB(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"action_requests":[{"name":"bulk","args":{"rows":[`)
	for i := 0; sb.Len() < 1<<20; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"id":1234,"email":"someone@example.com","amount":12.50}`)
	}
	sb.WriteString(`]}}],"review_configs":[{"action_name":"bulk","allowed_decisions":["approve","reject"]}]}`)
	raw := json.RawMessage(sb.String())
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if p := Parse(raw); p.Schema != SchemaMiddleware {
			b.Fatal(p.Schema)
		}
	}
}
