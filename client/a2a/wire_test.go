package a2a

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/transport"
)

// Both spellings of one waiting task read the same.
func TestBothSpellings(t *testing.T) {
	v1 := `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED","timestamp":"2026-11-28T16:08:32.894337Z",
	  "message":{"messageId":"m1","role":"ROLE_AGENT","parts":[{"text":"Which region?"}]}}}`
	v03 := `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"input-required","timestamp":"2026-11-28T16:08:32.894337Z",
	  "message":{"kind":"message","messageId":"m1","role":"agent","parts":[{"kind":"text","text":"Which region?"}]}}}`
	b, err := New(Options{Options: transport.Options{URL: "http://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, raw := range []string{v1, v03} {
		tk, _ := decodeTask(json.RawMessage(raw))
		if tk.problem != "" || tk.State != inputRequired || tk.Message.Role != "agent" || tk.Timestamp.IsZero() {
			t.Fatalf("%+v", tk)
		}
		qs := b.questions(tk, "g")
		if len(qs) != 1 || qs[0].it.Schema != client.SchemaPrompt || qs[0].it.Title != "Which region?" || qs[0].producer != plain {
			t.Fatalf("%+v", qs)
		}
		ids = append(ids, qs[0].it.ID)
	}
	if ids[0] != ids[1] {
		t.Errorf("one question, two ids: %v", ids)
	}
}

// A Strands reason that holds the ToolUse under toolUse is a tool call; a
// file part beside a question is shown, not dropped.
func TestQuestionShapes(t *testing.T) {
	b, _ := New(Options{Options: transport.Options{URL: "http://127.0.0.1:1"}})
	raw := `{"id":"t2","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"m2","role":"ROLE_AGENT","parts":[
	  {"data":{"interrupts":[{"interruptId":"v1:before_tool_call:x:1","name":"approval","reason":{"message":"ok?","toolUse":{"toolUseId":"x","name":"rm","input":{"path":"/"}}}}]}},
	  {"url":"https://example.com/report.pdf","mediaType":"application/pdf"}]}}}`
	tk, _ := decodeTask(json.RawMessage(raw))
	qs := b.questions(tk, "g")
	if len(qs) != 2 {
		t.Fatalf("%d questions: %+v", len(qs), qs)
	}
	if q := qs[0]; q.producer != strands || q.ref != "v1:before_tool_call:x:1" || len(q.it.Actions) != 1 || q.it.Actions[0].Name != "rm" ||
		string(q.it.Actions[0].Args) != `{"path":"/"}` {
		t.Errorf("Strands: %+v", q)
	}
	if q := qs[1]; q.producer != plain || q.it.Schema != client.SchemaRaw || !strings.Contains(string(q.it.Raw), "report.pdf") {
		t.Errorf("the file part: %+v", q)
	}
	r, err := client.Encode(&qs[0].it.Payload, []client.Decision{{Type: client.Reject, Message: "no"}}, client.EncodeOptions{})
	if err != nil || string(r.Value) != `"n: no"` {
		t.Errorf("reject: %s %v", r.Value, err)
	}
	if _, err := client.Encode(&qs[0].it.Payload, []client.Decision{{Type: client.Edit, Args: json.RawMessage(`{}`)}}, client.EncodeOptions{}); err == nil {
		t.Error("an edit of a Strands tool call is taken: Strands has no way to receive it")
	}
}

// Whose answer took the question, from the history.
func TestTookIn(t *testing.T) {
	h := []message{{ID: "start", Role: "user"}, {ID: "q", Role: "agent"}, {ID: "theirs", Role: "user"}, {ID: "mine", Role: "user"}}
	if took, found := tookIn(h, "mine", 2); !found || took {
		t.Errorf("after theirs: took %v found %v", took, found)
	}
	if took, found := tookIn(h, "theirs", 2); !found || !took {
		t.Errorf("theirs first: took %v found %v", took, found)
	}
	if took, found := tookIn(h, "mine", -1); !found || took {
		t.Errorf("unknown start, after theirs: took %v found %v", took, found)
	}
	// No agent message (LangGraph's artifact): the message that started
	// the task is not an answer.
	h = []message{{ID: "start", Role: "user"}, {ID: "mine", Role: "user"}}
	if took, _ := tookIn(h, "mine", -1); !took {
		t.Error("the task's first message counted as another answer")
	}
	if othersSince(h[:1], -1) || !othersSince(h, 1) {
		t.Error("othersSince")
	}
}
