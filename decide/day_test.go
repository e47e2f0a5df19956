package decide_test

import (
	"encoding/json"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
)

// "Answered elsewhere" shows the other answer as one line of JSON: its
// indent read as \n and runs of spaces.
func TestWinnerTextCompactsTheAnswer(t *testing.T) {
	got := decide.WinnerText(&client.Winner{Reviewer: "bob", Value: json.RawMessage("{\n  \"decisions\": [\n    {\"type\": \"approve\"}\n  ]\n}")})
	if want := ` (by bob, answer {"decisions":[{"type":"approve"}]})`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
