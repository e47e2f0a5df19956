package opencode_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/backendtest"
	"github.com/hitl-sh/hitl/client/opencode"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/demo"
)

func setup(t *testing.T) (*demo.OpencodeServer, string, *opencode.Backend, *backendtest.Faults) {
	t.Helper()
	fake := demo.NewOpencode()
	faults := &backendtest.Faults{}
	ts := httptest.NewServer(faults.Wrap(fake.Handler()))
	t.Cleanup(func() { fake.Close(); ts.CloseClientConnections(); ts.Close() })
	return fake, ts.URL, open(t, ts.URL), faults
}

func open(t *testing.T, url string) *opencode.Backend {
	t.Helper()
	b, err := opencode.New(opencode.Options{Options: transport.Options{URL: url, ReadRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func replyDirect(t *testing.T, url, id, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url+"/permission/"+id+"/reply", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, strings.TrimSpace(b.String())
}

func TestConformance(t *testing.T) {
	fake, url, b, faults := setup(t)
	n := 0
	backendtest.Run(t, backendtest.Fixture{
		Backend: b,
		Other:   open(t, url),
		Create: func(*testing.T) string {
			n++
			session := "ses_" + string(rune('a'+n))
			fake.Ask(session, "bash", []string{"git push origin main"}, []string{"git push *"}, nil)
			return session
		},
		Decide: func(client.Interrupt) []client.Decision { return []client.Decision{{Type: client.Approve}} },
		Reject: func(client.Interrupt) []client.Decision {
			return []client.Decision{{Type: client.Reject, Message: "not now"}}
		},
		Verify: func(t *testing.T, it client.Interrupt) {
			want := []demo.OpencodeReply{{Reply: "once", By: "reviewer"}}
			var raw struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(it.Raw, &raw)
			if got := fake.Answered(raw.ID); !reflect.DeepEqual(got, want) {
				t.Fatalf("the agent got %+v, want %+v", got, want)
			}
		},
		ResolveElsewhere: func(t *testing.T, it client.Interrupt) {
			var raw struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(it.Raw, &raw)
			if code, body := replyDirect(t, url, raw.ID, `{"reply":"reject"}`); code != 200 || body != "true" {
				t.Fatalf("reply elsewhere: %d %s", code, body)
			}
		},
		Faults: faults,
	})
}

func pending(t *testing.T, b *opencode.Backend, id string) client.Interrupt {
	t.Helper()
	its, err := b.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range its {
		var raw struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(it.Raw, &raw) == nil && raw.ID == id {
			if it.ID == id || !strings.HasPrefix(it.ID, "per_") || len(it.ID) != len(id) {
				t.Fatalf("opencode's %s is shown as %s: not its random part first", id, it.ID)
			}
			return it
		}
	}
	t.Fatalf("%s is not listed among %d", id, len(its))
	return client.Interrupt{}
}

// A request is shown as opencode asks it: the permission, its patterns,
// what "always" would allow, the session; its age from its id.
func TestShown(t *testing.T) {
	fake, _, b, _ := setup(t)
	id := fake.Ask("ses_show", "bash", []string{"rm -rf node_modules", "npm ci"}, []string{"rm *", "npm ci *"}, nil)
	it := pending(t, b, id)
	if it.ThreadID != "ses_show" || it.Origin == nil || it.Origin.Agent != "opencode" || it.Origin.SessionID != "ses_show" {
		t.Fatalf("interrupt %+v origin %+v", it, it.Origin)
	}
	if len(it.Actions) != 1 || it.Actions[0].Name != "bash" || string(it.Actions[0].Args) != `{"patterns":["rm -rf node_modules","npm ci"],"always":["rm *","npm ci *"]}` {
		t.Fatalf("actions %+v", it.Actions)
	}
	if !reflect.DeepEqual(it.Always, []string{"rm *", "npm ci *"}) {
		t.Fatalf("always %q", it.Always)
	}
	if age := time.Since(it.CreatedAt); age < 0 || age > time.Minute {
		t.Fatalf("asked %s ago, by its id %s", age, id)
	}
	var raw map[string]any
	if json.Unmarshal(it.Raw, &raw) != nil || raw["id"] != id || raw["permission"] != "bash" {
		t.Fatalf("raw is not opencode's request: %s", it.Raw)
	}
}

// What reaches opencode for each decision: once, always only when asked,
// reject with the reviewer's message as the agent's feedback.
func TestReplies(t *testing.T) {
	fake, _, b, _ := setup(t)
	send := func(it client.Interrupt, in decide.Input) *decide.Result {
		t.Helper()
		d, err := decide.Decision(&it, 0, in)
		if err != nil {
			t.Fatal(err)
		}
		return backendtest.Send(t, b, "alice", it, d)
	}
	for _, c := range []struct {
		name string
		in   decide.Input
		want demo.OpencodeReply
	}{
		{"approve", decide.Input{Type: client.Approve}, demo.OpencodeReply{Reply: "once", By: "reviewer"}},
		{"approve always", decide.Input{Type: client.Approve, Always: true}, demo.OpencodeReply{Reply: "always", By: "reviewer"}},
		{"reject", decide.Input{Type: client.Reject, Text: "use a branch"}, demo.OpencodeReply{Reply: "reject", Message: "use a branch", By: "reviewer"}},
		{"reject without a message", decide.Input{Type: client.Reject}, demo.OpencodeReply{Reply: "reject", By: "reviewer"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := fake.Ask("ses_"+strings.ReplaceAll(c.name, " ", "_"), "bash", []string{"git push"}, []string{"git push *"}, nil)
			if res := send(pending(t, b, id), c.in); res.Kind != decide.Sent || res.Run.Status != client.Accepted {
				t.Fatalf("send: %s", res.Text())
			}
			if got := fake.Answered(id); !reflect.DeepEqual(got, []demo.OpencodeReply{c.want}) {
				t.Fatalf("opencode got %+v, want %+v", got, c.want)
			}
		})
	}
	t.Run("always is refused where there is nothing to allow for good", func(t *testing.T) {
		id := fake.Ask("ses_none", "bash", []string{"ls"}, nil, nil)
		it := pending(t, b, id)
		if _, err := decide.Decision(&it, 0, decide.Input{Type: client.Approve, Always: true}); err == nil || !strings.Contains(err.Error(), "nothing to approve for good") {
			t.Fatalf("err = %v", err)
		}
		if _, err := client.Encode(&it.Payload, []client.Decision{{Type: client.Approve, Always: true}}, client.EncodeOptions{}); err == nil {
			t.Fatal("encoded an always opencode cannot take")
		}
		if len(fake.Answered(id)) != 0 {
			t.Fatal("something reached opencode")
		}
	})
}

// A reject rejects the session's other requests too (opencode's rule): a
// reviewer on one of them is told it was handled elsewhere.
func TestRejectTakesTheSession(t *testing.T) {
	fake, _, b, _ := setup(t)
	first := fake.Ask("ses_x", "bash", []string{"make deploy"}, nil, nil)
	second := fake.Ask("ses_x", "edit", []string{"Makefile"}, nil, nil)
	it2 := pending(t, b, second)
	if res := backendtest.Send(t, b, "alice", pending(t, b, first), client.Decision{Type: client.Reject, Message: "no"}); res.Kind != decide.Sent {
		t.Fatalf("send: %s", res.Text())
	}
	res := backendtest.Send(t, b, "bob", it2, client.Decision{Type: client.Approve})
	if res.Kind != decide.HandledElsewhere || !strings.Contains(res.Text(), "already handled elsewhere; nothing sent") {
		t.Fatalf("got %s: %s", res.Kind, res.Text())
	}
	if got := fake.Answered(second); len(got) != 1 || got[0].Reply != "reject" || got[0].By != "rejected with "+first {
		t.Fatalf("the second request got %+v", got)
	}
}

// 404 PermissionNotFoundError, and an older handler's 200 false, are
// "already handled elsewhere"; nothing is retried.
func TestNotPendingAnswers(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		fake, url, b, _ := setup(t)
		fake.Legacy = legacy
		id := fake.Ask("ses_y", "bash", []string{"ls"}, nil, nil)
		it := pending(t, b, id)
		if code, body := replyDirect(t, url, id, `{"reply":"once"}`); code != 200 || body != "true" {
			t.Fatalf("reply: %d %s", code, body)
		}
		wantCode, wantBody := 404, "PermissionNotFoundError"
		if legacy {
			wantCode, wantBody = 200, "false"
		}
		if code, body := replyDirect(t, url, id, `{"reply":"once"}`); code != wantCode || !strings.Contains(body, wantBody) {
			t.Fatalf("legacy %v: a second reply got %d %s", legacy, code, body)
		}
		p := &decide.Pipeline{Backend: b, Reviewer: "alice"}
		subs, err := p.Prepare([]decide.Draft{{Interrupt: it, Decisions: []client.Decision{{Type: client.Approve}}}})
		if err != nil {
			t.Fatal(err)
		}
		// Past Standing (which would already say so): the reply itself.
		if _, err := b.Resume(context.Background(), subs[0]); err != client.ErrAlreadyHandled {
			t.Fatalf("legacy %v: err = %v", legacy, err)
		}
		if got := fake.Answered(id); len(got) != 1 {
			t.Fatalf("legacy %v: opencode got %+v", legacy, got)
		}
	}
}

// A request whose bytes attack the terminal is listed, its bytes kept;
// the reviewer's screen is the job of present/inert (tested there and by
// the CLI test).
func TestUntrustedBytesListed(t *testing.T) {
	fake, _, b, _ := setup(t)
	id := fake.Ask("ses_\x1b[2J", "bash\x1b]0;pwned\x07", []string{"echo hi\u202e"}, nil, map[string]any{"x": "\x1b[31m"})
	it := pending(t, b, id)
	if it.Actions[0].Name != "bash\x1b]0;pwned\x07" || !strings.Contains(string(it.Actions[0].Args), `echo hi\u202e`) && !strings.Contains(string(it.Actions[0].Args), "echo hi\u202e") {
		t.Fatalf("actions %+v", it.Actions)
	}
}

// Changes signals a request asked and a request replied to.
func TestChanges(t *testing.T) {
	fake, url, b, _ := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := b.Changes(ctx)
	time.Sleep(200 * time.Millisecond) // the stream opens
	id := fake.Ask("ses_z", "bash", []string{"ls"}, nil, nil)
	wait(t, ch)
	replyDirect(t, url, id, `{"reply":"once"}`)
	wait(t, ch)
}

func wait(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("no change signal from the event stream")
	}
}
