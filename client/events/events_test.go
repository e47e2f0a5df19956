package events_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/backendtest"
	"github.com/hitl-sh/hitl/client/events"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/demo"
)

var question = map[string]any{"questions": []any{"Deploy now?"}, "allowed_decisions": []any{"approve", "edit", "reject"}, "prompt": "Go-ahead needed"}

func setup(t *testing.T, reviewer string) (*demo.EventsServer, string, *events.Backend, *backendtest.Faults) {
	t.Helper()
	fake := demo.NewEvents()
	faults := &backendtest.Faults{}
	ts := httptest.NewServer(faults.Wrap(fake.Handler()))
	t.Cleanup(func() { fake.Close(); ts.CloseClientConnections(); ts.Close() })
	b, err := events.New(events.Options{Options: transport.Options{URL: ts.URL, ReadRetries: -1}, Reviewer: reviewer})
	if err != nil {
		t.Fatal(err)
	}
	return fake, ts.URL, b, faults
}

func respondDirect(t *testing.T, url, id string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"request_id": id, "response": map[string]string{"decision": "reject", "reason": "someone else"}})
	resp, err := http.Post(url+"/hitl/respond", "application/json", bytes.NewReader(body))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("respond elsewhere: %v %v", err, resp)
	}
	resp.Body.Close()
}

func TestConformance(t *testing.T) {
	fake, url, b, faults := setup(t, "alice")
	other, err := events.New(events.Options{Options: transport.Options{URL: url, ReadRetries: -1}, Reviewer: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	backendtest.Run(t, backendtest.Fixture{
		Backend: b,
		Other:   other,
		Create: func(*testing.T) string {
			n++
			session := "session-" + string(rune('a'+n))
			fake.Ask("deploy-bot", session, question)
			return session
		},
		Decide: func(client.Interrupt) []client.Decision { return []client.Decision{{Type: client.Approve}} },
		Verify: func(t *testing.T, it client.Interrupt) {
			if got := string(fake.Answers[it.ID]); got != `{"decision":"approve"}` {
				t.Fatalf("the agent got %s", got)
			}
		},
		ResolveElsewhere: func(t *testing.T, it client.Interrupt) { respondDirect(t, url, it.ID) },
		Faults:           faults,
	})
}

// A decision made in one hitl disappears at once from another watching the
// same coordinator: the answered event reaches every stream.
func TestAnsweredDisappearsEverywhere(t *testing.T) {
	fake, url, first, _ := setup(t, "alice")
	second, err := events.New(events.Options{Options: transport.Options{URL: url}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := second.Changes(ctx)
	id := fake.Ask("deploy-bot", "s1", question)
	waitSignal(t, changes) // hitl_asked
	its, _ := second.Pending(ctx)
	if len(its) != 1 || its[0].ID != id {
		t.Fatalf("second sees %+v", its)
	}
	if res := backendtest.Send(t, first, "alice", its[0], client.Decision{Type: client.Approve}); res.Kind != decide.Sent || res.Run.Status != client.Accepted {
		t.Fatalf("send: %s", res.Text())
	}
	waitSignal(t, changes) // hitl_answered
	if its, _ := second.Pending(ctx); len(its) != 0 {
		t.Fatalf("still listed on the second reviewer: %+v", its)
	}
}

func waitSignal(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("no change signal from the stream")
	}
}

// A reconnecting reader gives Last-Event-ID and gets only what it missed.
func TestLastEventIDReplay(t *testing.T) {
	fake, url, _, _ := setup(t, "")
	fake.Ask("a", "s1", "first?")
	fake.Ask("a", "s2", "second?")
	req, _ := http.NewRequest("GET", url+"/hitl/events", nil)
	req.Header.Set("Last-Event-ID", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var got []string
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "id: ") || strings.HasPrefix(line, "data: ") {
			got = append(got, line)
		}
		if len(got) == 2 {
			break
		}
	}
	if len(got) != 2 || got[0] != "id: 2" || !strings.Contains(got[1], "second?") {
		t.Fatalf("replay after 1: %q", got)
	}
}

// A hub (or coordinator) that is not running: the error says what to start,
// the hub's own command first (most coordinators here are a hitl hub).
func TestHubDownSaysWhatToStart(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close() // nothing listens there now
	b, err := events.New(events.Options{Options: transport.Options{URL: url}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Pending(context.Background())
	if err == nil || !strings.Contains(err.Error(), "refused the connection: is the hub (`hitl serve --http`) or the agent's HITL coordinator running there?") {
		t.Fatalf("the hub down: %v", err)
	}
}
