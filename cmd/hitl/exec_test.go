package main

import (
	"reflect"
	"testing"
)

func TestSplitArgsNeverInterprets(t *testing.T) {
	for in, want := range map[string][]string{
		`notify-send hitl`:                       {"notify-send", "hitl"},
		`  a   b  `:                              {"a", "b"},
		`notify-send "hitl: new" 'it''s'`:        {"notify-send", "hitl: new", "its"},
		`echo a;rm -rf /tmp/x`:                   {"echo", "a;rm", "-rf", "/tmp/x"},
		`echo $(id) $HOME ~ * | cat > f &`:       {"echo", "$(id)", "$HOME", "~", "*", "|", "cat", ">", "f", "&"},
		`say "a \"b\" \$c \x" back\ slash`:       {"say", `a "b" $c \x`, "back slash"},
		`''`:                                     {""},
		`curl -d @- https://hooks.example/T0/B1`: {"curl", "-d", "@-", "https://hooks.example/T0/B1"},
	} {
		got, err := splitArgs(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("splitArgs(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`echo 'open`, `echo "open`, `echo \`} {
		if _, err := splitArgs(bad); err == nil {
			t.Errorf("splitArgs(%q): no error", bad)
		}
	}
}

func TestExecFlagsRefused(t *testing.T) {
	for _, c := range []struct{ cmd, shell string }{{"a", "b"}, {`echo 'x`, ""}, {"   ", ""}, {"", "  "}, {"no-such-command-hitl-test", ""}} {
		if _, err := newExecHook(c.cmd, c.shell, 1, nil); err == nil {
			t.Errorf("--exec %q --exec-shell %q: accepted", c.cmd, c.shell)
		}
	}
	if h, err := newExecHook("", "", 1, nil); h != nil || err != nil {
		t.Errorf("no command: %v %v", h, err)
	}
}
