package watchexec

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

func TestSplitArgsNeverInterprets(t *testing.T) {
	t.Parallel()
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

func TestExecKeepsCredentialsHome(t *testing.T) {
	t.Parallel()
	h, err := New("true", "", 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.environ = func() []string {
		return []string{"PATH=/bin", "HITL_API_KEY=lsv2-secret", "LANGSMITH_API_KEY=lsv2-secret", "HITL_BEARER_TOKEN=tok-secret",
			"LANGGRAPH_API_KEY=lg-secret", "LANGCHAIN_API_KEY=lc-secret", "HITL_PROFILE=prod"}
	}
	env := strings.Join(h.env(client.Interrupt{ID: "i1", ThreadID: "t1"}), "\n")
	if strings.Contains(env, "secret") {
		t.Fatalf("a credential reached the command's environment:\n%s", env)
	}
	for _, want := range []string{"PATH=/bin", "HITL_PROFILE=prod", "HITL_INTERRUPT_ID=i1", "HITL_THREAD_ID=t1"} {
		if !strings.Contains(env+"\n", want+"\n") {
			t.Errorf("env lacks %s:\n%s", want, env)
		}
	}
}
