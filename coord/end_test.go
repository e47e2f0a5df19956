package coord

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// A publisher's request has no thread here to end, nor a conversation:
// an "end" is refused and nothing is answered; the request still waits.
func TestAPublishersRequestIsNotEnded(t *testing.T) {
	srv := httptest.NewServer(New(Options{Team: testTeam()}).Handler())
	defer srv.Close()
	code, st := call(t, srv, "ci-token-0123456789abcd", "POST", "/hitl/requests", map[string]any{"agent": "claude", "data": bashData})
	if code != 201 {
		t.Fatalf("publish: %d %v", code, st)
	}
	id := st["request_id"].(string)
	alice := "alice-token-0123456789"
	code, out := call(t, srv, alice, "POST", "/hitl/respond", map[string]any{"request_id": id, "end": map[string]any{"kind": "dismiss"}})
	if code != 422 || !strings.Contains(out["message"].(string), "has no thread here to end") {
		t.Fatalf("end: %d %v", code, out)
	}
	code, out = call(t, srv, alice, "POST", "/hitl/respond", map[string]any{"request_id": id, "end": map[string]any{"kind": "dismiss"}, "response": map[string]any{}})
	if code != 422 {
		t.Fatalf("end and response together: %d %v", code, out)
	}
	if code, st := call(t, srv, alice, "GET", "/hitl/requests/"+id, nil); code != 200 || st["status"] != "pending" {
		t.Fatalf("after the refusals: %d %v", code, st)
	}
	if code, out := call(t, srv, alice, "GET", "/hitl/sessions/s-1/conversation", nil); code != 404 || !strings.Contains(out["message"].(string), "no conversation is kept here") {
		t.Fatalf("conversation: %d %v", code, out)
	}
}
