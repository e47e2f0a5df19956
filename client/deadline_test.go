package client

import (
	"testing"
	"time"
)

// A deadline and its default ride on any shape.
func TestDeadlineIsRead(t *testing.T) {
	for _, c := range []struct {
		value, def string
	}{
		{`{"action_requests":[{"name":"send_email","args":{"to":"a"}}],"review_configs":[{"action_name":"send_email","allowed_decisions":["approve","reject"]}],"expires_at":"2026-11-22T03:04:00Z","default":"reject"}`, "reject"},
		{`{"question":"Ship it?","expires_at":"2026-11-22T03:04:00+00:00","default":{"type":"approve"}}`, "approve"},
	} {
		p := Parse([]byte(c.value))
		if !p.ExpiresAt.Equal(time.Date(2026, 11, 22, 3, 4, 0, 0, time.UTC)) || p.Default != c.def {
			t.Fatalf("%s: expires %v default %q", c.value, p.ExpiresAt, p.Default)
		}
	}
	if p := Parse([]byte(`{"question":"x","expires_at":"soon"}`)); !p.ExpiresAt.IsZero() {
		t.Fatalf("a time that does not parse: %v", p.ExpiresAt)
	}
	if p := Parse([]byte(`{"action_requests":[{"name":"send_email","args":{}}],"review_configs":[{"action_name":"send_email","allowed_decisions":["approve"]}],"expires_at":"2026-11-22T03:04:00Z"}`)); p.Schema != SchemaMiddleware {
		t.Fatalf("the deadline changed the shape: %s", p.Schema)
	}
}
