package tui

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client/a2a"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/internal/realserver"
)

// On an A2A agent (the real test agent), the confirm screen's v shows the
// message hitl sends around the answer (its parts, task, metadata), and
// the agent receives that message.
func TestConfirmShowsTheA2AMessage(t *testing.T) {
	agent := realserver.A2A(t)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": map[string]any{"message": map[string]any{
		"messageId": "start-" + time.Now().Format("150405.000000000"), "role": "ROLE_USER", "parts": []any{map[string]any{"text": "strands"}}}}})
	req, _ := http.NewRequest("POST", agent, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Result struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		} `json:"result"`
	}
	json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	task := r.Result.Task.ID
	if task == "" {
		t.Fatal("the agent started no task")
	}
	b, err := a2a.New(a2a.Options{Options: transport.Options{URL: agent}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessOn(t, 120, 60, nil, b)
	h.run(h.m.fetch(false))
	h.keys("/")
	h.typeText(task)
	h.keys("enter", "enter", "a")
	h.wantScreen("Send this?")
	h.keys("v")
	flat := strings.Join(strings.Fields(h.screen()), " ")
	for _, want := range []string{"The message that carries it, exactly as sent", `"messageId": "hitl-…"`, `"taskId": "` + task + `"`,
		`"interruptResponse": {`, `"response": "y"`, `"hitl_reviewer": "tester"`, `"role": "ROLE_USER"`} {
		if !strings.Contains(flat, want) {
			t.Fatalf("the confirm screen does not show %s:\n%s", want, h.screen())
		}
	}
	h.keys("y")
	h.wantScreen("Sent approve")
	got, err := http.Get(strings.TrimRight(agent, "/") + "/received/" + url.PathEscape(task))
	if err != nil {
		t.Fatal(err)
	}
	defer got.Body.Close()
	rec, _ := io.ReadAll(got.Body)
	if !strings.Contains(string(rec), `"interruptResponse"`) || !strings.Contains(string(rec), `"response": "y"`) && !strings.Contains(string(rec), `"response":"y"`) {
		t.Fatalf("the agent received %s", rec)
	}
}
