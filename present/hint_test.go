package present

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

func fixtureInterrupt(t *testing.T, name string) client.Interrupt {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "client", "testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return client.Interrupt{ID: "abcd1234abcd1234abcd1234abcd1234", Payload: client.Parse(raw), Raw: raw}
}

// show suggests only what the interrupt allows.
func TestShowHintFollowsTheAllowedDecisions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		fixture   string
		want, not []string
	}{
		{"middleware-js-ops", []string{"hitl approve abcd1234", "hitl reject abcd1234 -m WHY", "hitl edit abcd1234 --action 2 --args FILE --others approve", "hitl decide abcd1234"},
			[]string{"--action 1", "hitl respond", "hitl ignore"}},
		{"middleware-js-email", []string{"hitl approve abcd1234", "hitl edit abcd1234 --args FILE"}, []string{"--action", "hitl decide"}},
		{"questions", []string{"hitl respond abcd1234 -m FEEDBACK --answer A1 --answer A2", "hitl reject"}, []string{"hitl edit"}},
		{"raw", []string{"hitl respond abcd1234 -m TEXT", "hitl resume abcd1234 --value JSON"}, []string{"hitl approve", "hitl edit"}},
	} {
		got := Hint(fixtureInterrupt(t, tt.fixture))
		if strings.Contains(got, " | ") {
			t.Errorf("%s: alternatives joined as a shell pipe: %q", tt.fixture, got)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tt.fixture, got, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: %q suggests %q, which the interrupt does not allow", tt.fixture, got, n)
			}
		}
	}
}
