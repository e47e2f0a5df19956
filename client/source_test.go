package client_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// What the rest of the inbox does is said once, however the source's
// failure came (a hub's header, cut at its length; one wrapped in another).
func TestSourceDownSaysTheRestOnce(t *testing.T) {
	const src = "the LangGraph server at http://127.0.0.1:2024"
	why := errors.New("list interrupted threads: dial tcp 127.0.0.1:2024: connect: connection refused")
	d := &client.SourceDown{Source: src, Err: why}
	want := src + " cannot be listed (" + why.Error() + "); the rest of the inbox is listed"
	for name, got := range map[string]*client.SourceDown{
		"read back":        client.SourceDownOf(d.Error(), "one of the hub's sources"),
		"wrapped":          {Source: src, Err: d},
		"cut":              client.SourceDownOf(d.Error()[:len(d.Error())-30]+"...", "one of the hub's sources"),
		"no source named":  client.SourceDownOf(why.Error()+"; the rest of the inbox is listed", src),
		"named, cut short": client.SourceDownOf(src+" cannot be listed ("+why.Error()+")", "x"),
	} {
		text := got.Error()
		if strings.Count(text, "the rest of the inbox is listed") != 1 || strings.Count(text, "cannot be listed") != 1 || !strings.HasPrefix(text, src+" cannot be listed (list interrupted threads") {
			t.Errorf("%s: %q", name, text)
		}
		if name != "cut" && text != want {
			t.Errorf("%s: %q, want %q", name, text, want)
		}
	}
}
