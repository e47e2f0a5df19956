package client_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// An answer (through a hub's door; a pending approval's value) is read back into decisions only when they
// encode it exactly: the rules look at what is sent, and nothing rides
// along that the decisions do not say.
func TestDecisionsOf(t *testing.T) {
	value := json.RawMessage(`{"action_requests":[{"name":"delete_records","args":{"table":"sessions"}},{"name":"notify","args":{"channel":"#ops"}}],` +
		`"review_configs":[{"action_name":"delete_records","allowed_decisions":["approve","reject"]},{"action_name":"notify","allowed_decisions":["approve","edit","reject"]}]}`)
	p := client.Parse(value)
	if p.Schema != client.SchemaMiddleware {
		t.Fatalf("schema %s", p.Schema)
	}
	opts := client.EncodeOptions{Dialect: client.DialectEditedAction}
	for _, c := range []struct{ resp, want, err string }{
		{`{"decisions":[{"type":"approve"},{"type":"approve"}]}`, "approve,approve", ""},
		{`{"decisions":[{"type":"approve"},{"type":"edit","edited_action":{"name":"notify","args":{"channel":"#oncall"}}}]}`, "approve,edit", ""},
		{`{"decisions":[{"type":"approve"},{"type":"reject","message":"no"}]}`, "approve,reject", ""},
		// Something the decisions do not say rides along: refused.
		{`{"decisions":[{"type":"approve","args":{"table":"users"}},{"type":"approve"}]}`, "", "not an answer hitl would send"},
		{`{"decisions":[{"type":"approve"},{"type":"approve"}],"extra":1}`, "", "not an answer hitl would send"},
		// What the interrupt does not allow, or a count that is not one per action.
		{`{"decisions":[{"type":"edit","edited_action":{"name":"delete_records","args":{"table":"users"}}},{"type":"approve"}]}`, "", `"edit" is not allowed here`},
		{`{"decisions":[{"type":"approve"}]}`, "", "takes 2 decision(s)"},
		{`"approve"`, "", "not an answer hitl would send"},
	} {
		ds, err := client.DecisionsOf(&p, json.RawMessage(c.resp), opts)
		var got []string
		for _, d := range ds {
			got = append(got, string(d.Type))
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: got %v, %v; want an error saying %q", c.resp, got, err, c.err)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != c.want {
			t.Errorf("%s: got %v, %v; want %s", c.resp, got, err, c.want)
		}
	}
}
