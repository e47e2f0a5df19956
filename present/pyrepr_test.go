package present

import (
	"encoding/json"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// pyRepr writes what Python's str() writes of json.loads of the same
// text: the expected strings were printed by CPython 3 (str(json.loads(x))).
func TestPyReprAsPythonWritesIt(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{"{\"to\": \"customer@example.com\", \"subject\": \"Your refund\", \"body\": \"Hello,\\n\\nYour refund of $12.50 is on its way.\\n\", \"cc\": [\"support@example.com\"]}", "{'to': 'customer@example.com', 'subject': 'Your refund', 'body': 'Hello,\\n\\nYour refund of $12.50 is on its way.\\n', 'cc': ['support@example.com']}"},
		{"{\"a\": 1.0, \"b\": 1e16, \"c\": 1.5e-05, \"d\": 0.1, \"e\": -0.0, \"f\": 123456789012345678901, \"g\": null, \"h\": true, \"i\": [], \"j\": {}, \"k\": \"it's\", \"l\": \"both ' and \\\"\", \"m\": \"tab\\tcr\\r\\u0001\\u007f\\u200b\\u00e9\\ud83d\\ude00\\u2028 \\\\\", \"n\": 1e-4, \"o\": 12345678.125, \"p\": 1e15, \"q\": 2.5e300, \"r\": 100, \"s\": 3.0e2, \"t\": 0.000012}", "{'a': 1.0, 'b': 1e+16, 'c': 1.5e-05, 'd': 0.1, 'e': -0.0, 'f': 123456789012345678901, 'g': None, 'h': True, 'i': [], 'j': {}, 'k': \"it's\", 'l': 'both \\' and \"', 'm': 'tab\\tcr\\r\\x01\\x7f\\u200bé😀\\u2028 \\\\', 'n': 0.0001, 'o': 12345678.125, 'p': 1000000000000000.0, 'q': 2.5e+300, 'r': 100, 's': 300.0, 't': 1.2e-05}"},
	} {
		got, ok := pyRepr([]byte(tc.json))
		if !ok || got != tc.want {
			t.Errorf("pyRepr(%s)\n got %s\nwant %s", tc.json, got, tc.want)
		}
	}
	if _, ok := pyRepr([]byte(`{"a":`)); ok {
		t.Error("broken JSON written")
	}
}

// The Python middleware's default description says the args as Python
// writes a dict: left out where it says exactly the args, kept where not.
func TestActionDescriptionOfThePythonMiddleware(t *testing.T) {
	args := json.RawMessage(`{"to":"customer@example.com","cc":["support@example.com"],"urgent":false}`)
	a := client.Action{Name: "send_email", Args: args,
		Description: "Tool execution pending approval\n\nTool: send_email\nArgs: {'to': 'customer@example.com', 'cc': ['support@example.com'], 'urgent': False}"}
	if got := ActionDescription(a); got != "Tool execution pending approval" {
		t.Fatalf("got %q", got)
	}
	a.Description = "Tool execution pending approval\n\nTool: send_email\nArgs: {'to': 'someone@else.example', 'cc': ['support@example.com'], 'urgent': False}"
	if got := ActionDescription(a); got != a.Description {
		t.Fatalf("a description with other args was cut: %q", got)
	}
}
