package review

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
)

// Of several results, the worst is what a script hears; a first approval
// recorded gives way to anything but success.
func TestWorseIsWhatAScriptHears(t *testing.T) {
	for _, tt := range []struct{ a, b, want Kind }{
		{OK, OK, OK}, {OK, Pending, Pending}, {Pending, OK, Pending}, {Pending, Nothing, Nothing},
		{Nothing, Pending, Nothing}, {Refused, Nothing, Refused}, {Failed, Refused, Refused}, {Unconfirmed, Refused, Unconfirmed},
	} {
		if got := Worse(tt.a, tt.b); got != tt.want {
			t.Errorf("Worse(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// A decision sent whose run failed is not a success; one answered
// elsewhere is nothing left to do.
func TestOfResult(t *testing.T) {
	sub := &client.Submission{Items: []client.Item{{Interrupt: client.Interrupt{ID: "abcd1111"}}}}
	for _, tt := range []struct {
		r    decide.Result
		want Kind
	}{
		{decide.Result{Kind: decide.Sent, Submission: sub}, OK},
		{decide.Result{Kind: decide.Sent, Submission: sub, Run: client.Outcome{Status: client.Failed, Error: "boom"}}, Failed},
		{decide.Result{Kind: decide.HandledElsewhere, Submission: sub}, Nothing},
		{decide.Result{Kind: decide.Busy, Submission: sub}, Refused},
		{decide.Result{Kind: decide.ApprovalRecorded, Submission: sub}, Pending},
		{decide.Result{Kind: decide.Unconfirmed, Submission: sub}, Unconfirmed},
	} {
		got, err := OfResult(&tt.r)
		if got != tt.want || (got == OK) != (err == nil) {
			t.Errorf("%s: %d %v, want %d", tt.r.Kind, got, err, tt.want)
		}
		var e *Error
		if err != nil && (!errors.As(err, &e) || e.Kind != got) {
			t.Errorf("%s: the error's Kind is not the result's: %v", tt.r.Kind, err)
		}
		// Its --json object says the exit code the command exits with,
		// whatever the result (an approval recorded, 6, included).
		var m map[string]any
		if err := json.Unmarshal(jsonOf(t, ResultJSON(&tt.r)), &m); err != nil || m["exit_code"] != float64(tt.want) {
			t.Errorf("%s: --json exit_code %v, want %d (%v)", tt.r.Kind, m["exit_code"], tt.want, err)
		}
	}
}

func jsonOf(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
