package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/coord"
	"github.com/hitl-sh/hitl/team"
)

// An SSH session's inbox says who withdrew a request: the hub (here, it
// expired) or its agent (its publisher's DELETE).
func TestTheDoorSaysWhoWithdrewARequest(t *testing.T) {
	const ci = "ci-token-0123456789abcd"
	c := coord.New(coord.Options{Team: &team.Config{Publishers: map[string]team.Publisher{"ci": {Token: ci}}}})
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	data := map[string]any{"action_requests": []any{map[string]any{"name": "Bash", "args": map[string]any{"command": "ls"}}},
		"review_configs": []any{map[string]any{"action_name": "Bash", "allowed_decisions": []any{"approve", "reject"}}}}
	do := func(method, path string, body any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, srv.URL+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+ci)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return out
	}
	expired := do("POST", "/hitl/requests", map[string]any{"agent": "claude", "data": data, "expires_in": 0.1})["request_id"].(string)
	deleted := do("POST", "/hitl/requests", map[string]any{"agent": "claude", "data": data})["request_id"].(string)
	do("GET", "/hitl/requests/"+expired+"?wait=5s", nil)
	do("DELETE", "/hitl/requests/"+deleted, map[string]any{"reason": "no decision within 4s"})
	d := &doorRequests{c: c}
	var st []client.Standing
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var err error
		st, err = d.Standing(context.Background(), []client.Interrupt{{ID: expired}, {ID: deleted}})
		if err != nil {
			t.Fatal(err)
		}
		if st[0].By != nil || time.Now().After(deadline) {
			break
		}
	}
	if w := st[0].By; w == nil || w.WithdrawnBy != client.WithdrawnByHub {
		t.Fatalf("expired: %+v", w)
	}
	if w := st[1].By; w == nil || w.WithdrawnBy != client.WithdrawnByAgent || w.Withdrawn != "no decision within 4s" {
		t.Fatalf("withdrawn by its publisher: %+v", w)
	}
}
