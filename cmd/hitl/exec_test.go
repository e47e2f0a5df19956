package main

import (
	"testing"
)

func TestExecFlagsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ cmd, shell string }{{"a", "b"}, {`echo 'x`, ""}, {"   ", ""}, {"", "  "}, {"no-such-command-hitl-test", ""}} {
		if _, err := newExecHook(c.cmd, c.shell, 1, nil, nil); err == nil {
			t.Errorf("--exec %q --exec-shell %q: accepted", c.cmd, c.shell)
		}
	}
	if h, err := newExecHook("", "", 1, nil, nil); h != nil || err != nil {
		t.Errorf("no command: %v %v", h, err)
	}
}
