package config

import (
	"strings"
	"testing"
	"time"
)

// look_every: the profile's, $HITL_LOOK_EVERY over it, the default when
// neither says; nonsense and a rate that would hammer a server are
// refused, saying what to write.
func TestLookEvery(t *testing.T) {
	for _, tt := range []struct {
		yaml string
		env  string
		want time.Duration
		err  string
	}{
		{"", "", DefaultLookEvery, ""},
		{"look_every: 1s", "", time.Second, ""},
		{"look_every: 1s", "250ms", 250 * time.Millisecond, ""},
		{"", "50ms", 50 * time.Millisecond, ""},
		{"look_every: 5ms", "", 0, "look_every 5ms is too short: looks at the server come at most every 50ms"},
		{"look_every: -1s", "", 0, "look_every -1s is too short"},
		{"", "0", 0, "HITL_LOOK_EVERY 0s is too short"},
		{"look_every: 1s", "soon", 0, `HITL_LOOK_EVERY "soon" is not a duration (write it like 200ms or 1s)`},
		{"look_every: soon", "", 0, `line 4: "soon" is not a duration`},
	} {
		f, err := Parse("c.yaml", []byte("profiles:\n  a:\n    url: http://127.0.0.1:9\n    "+tt.yaml+"\n"))
		var s *Settings
		if err == nil {
			s, err = Resolve(f, Overrides{}, env(map[string]string{"HITL_LOOK_EVERY": tt.env}))
		}
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q, HITL_LOOK_EVERY=%q: err %v, want %q", tt.yaml, tt.env, err, tt.err)
			}
		case err != nil:
			t.Errorf("%q, HITL_LOOK_EVERY=%q: %v", tt.yaml, tt.env, err)
		case s.LookEvery != tt.want || s.Redacted()["look_every"] != tt.want.String():
			t.Errorf("%q, HITL_LOOK_EVERY=%q: look_every %v (shown %v), want %v", tt.yaml, tt.env, s.LookEvery, s.Redacted()["look_every"], tt.want)
		}
	}
}
