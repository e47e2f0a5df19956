package client

import (
	"encoding/json"
	"strings"
	"time"
)

// deadline reads a value's deadline: a top-level `expires_at` (RFC 3339)
// and the `default` decision taken when it passes (a decision's name, or
// an object with its "type"), as the agent-wait envelope carries them.
// A value without them, or with a time that does not parse, has none.
func deadline(value json.RawMessage) (time.Time, string) {
	var v struct {
		ExpiresAt string          `json:"expires_at"`
		Default   json.RawMessage `json:"default"`
	}
	if json.Unmarshal(value, &v) != nil || v.ExpiresAt == "" {
		return time.Time{}, ""
	}
	at, err := time.Parse(time.RFC3339, strings.TrimSpace(v.ExpiresAt))
	if err != nil {
		return time.Time{}, ""
	}
	var name string
	if json.Unmarshal(v.Default, &name) != nil {
		var obj struct {
			Type     string `json:"type"`
			Decision string `json:"decision"`
		}
		if json.Unmarshal(v.Default, &obj) == nil {
			name = obj.Type
			if name == "" {
				name = obj.Decision
			}
		}
	}
	return at, strings.TrimSpace(name)
}
