package langgraph

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// A three-way Send fan-out after its branches a and b were answered, one at
// a time, as each server shows it (captured from langgraph-api 0.16.7 with
// langgraph 1.2.20; the JS state as langgraphjs 1.7.3 shapes it, with the
// same ids; fields hitl does not read left out). Both servers list branch a
// again in thread.interrupts; only the state says it is answered, by
// interrupt id on JS and by task id alone on Python.
const (
	fanoutThread = `[{"thread_id":"4ee0b470-d0d2-4920-8fdd-3ad9e379f038","created_at":"2026-11-24T12:44:31.414110+00:00","updated_at":"2026-11-24T12:44:35.835711+00:00","metadata":{"graph_id":"fanout"},"status":"interrupted","interrupts":{` +
		`"3a792519-04d3-5da8-3fc1-f0bec8aac37b":[{"id":"02a2de528a84775768bb7d70175977c3","value":{"question":"Ship a?","item":"a"}}],` +
		`"9158cbef-7e6f-ef73-abb1-36a76c5ee8e9":[{"id":"e714f7d4526430513bc5c5a0e0b8f703","value":{"question":"Ship c?","item":"c"}}]}}]`
	pyFanoutState = `{"next":["branch"],"checkpoint":{"checkpoint_id":"1f1e804c-bdbf-6f0d-8000-915eaf77806f"},"tasks":[` +
		`{"id":"3a792519-04d3-5da8-3fc1-f0bec8aac37b","name":"branch","error":null,"interrupts":[],"result":{"log":[{"node":"branch","item":"a","value":"yes-a"}]}},` +
		`{"id":"123c49d2-1758-0e94-c12d-19e579f0c4ec","name":"branch","error":null,"interrupts":[],"result":{"log":[{"node":"branch","item":"b","value":"yes-b"}]}},` +
		`{"id":"9158cbef-7e6f-ef73-abb1-36a76c5ee8e9","name":"branch","error":null,"interrupts":[{"id":"e714f7d4526430513bc5c5a0e0b8f703","value":{"question":"Ship c?","item":"c"}}],"result":null}]}`
	jsFanoutState = `{"next":["branch"],"checkpoint":{"checkpoint_id":"1f1e804c-bdbf-6f0d-8000-915eaf77806f"},"tasks":[` +
		`{"id":"3a792519-04d3-5da8-3fc1-f0bec8aac37b","name":"branch","interrupts":[{"id":"02a2de528a84775768bb7d70175977c3","value":{"question":"Ship a?","item":"a"}}],"result":{"log":[{"node":"branch","item":"a","value":"yes-a"}]}},` +
		`{"id":"123c49d2-1758-0e94-c12d-19e579f0c4ec","name":"branch","interrupts":[{"id":"0a08c7e5054a0ab1f00893b6d1737418","value":{"question":"Ship b?","item":"b"}}],"result":{"log":[{"node":"branch","item":"b","value":"yes-b"}]}},` +
		`{"id":"9158cbef-7e6f-ef73-abb1-36a76c5ee8e9","name":"branch","interrupts":[{"id":"e714f7d4526430513bc5c5a0e0b8f703","value":{"question":"Ship c?","item":"c"}}]}]}`
	branchA = "02a2de528a84775768bb7d70175977c3"
	branchC = "e714f7d4526430513bc5c5a0e0b8f703"
)

func fanoutServer(t *testing.T, search, state string) *Backend {
	return fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/threads/search":
			var body map[string]any
			json.NewDecoder(r.Body).Decode(&body)
			if body["status"] == "busy" {
				w.Write([]byte("[]"))
				return
			}
			w.Write([]byte(search))
		case r.URL.Path == "/threads/4ee0b470-d0d2-4920-8fdd-3ad9e379f038":
			w.Write([]byte(strings.TrimSuffix(strings.TrimPrefix(search, "["), "]")))
		case strings.HasSuffix(r.URL.Path, "/state"):
			w.Write([]byte(state))
		case strings.HasSuffix(r.URL.Path, "/runs"):
			w.Write([]byte("[]"))
		default:
			http.NotFound(w, r)
		}
	})
}

func ids(its []client.Interrupt) []string {
	var out []string
	for _, it := range its {
		out = append(out, it.ID)
	}
	return out
}

// The branch answered first, listed again by the server, is neither listed
// nor standing as waiting; the branch that waits is.
func TestAnsweredBranchListedAgainIsNotPending(t *testing.T) {
	t.Parallel()
	for name, state := range map[string]string{"python": pyFanoutState, "js": jsFanoutState} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := fanoutServer(t, fanoutThread, state)
			its, err := b.Pending(context.Background())
			if err != nil || !slices.Equal(ids(its), []string{branchC}) {
				t.Fatalf("listed %v (%v), want only branch c %s", ids(its), err, branchC)
			}
			st, err := b.Standing(context.Background(), []client.Interrupt{{ID: branchA, ThreadID: "4ee0b470-d0d2-4920-8fdd-3ad9e379f038"}, {ID: branchC, ThreadID: "4ee0b470-d0d2-4920-8fdd-3ad9e379f038"}})
			if err != nil || st[0].Presence != client.Answered || st[1].Presence != client.Waiting {
				t.Fatalf("standing %+v %v", st, err)
			}
		})
	}
}

// A task without a result keeps its interrupts listed, even where the
// state shows no interrupt for it: only a result says a branch is done.
func TestBranchWithoutResultStaysPending(t *testing.T) {
	t.Parallel()
	state := strings.Replace(pyFanoutState, `"interrupts":[],"result":{"log":[{"node":"branch","item":"a","value":"yes-a"}]}`, `"interrupts":[],"result":null`, 1)
	if state == pyFanoutState {
		t.Fatal("the state was not changed")
	}
	b := fanoutServer(t, fanoutThread, state)
	its, err := b.Pending(context.Background())
	if err != nil || !slices.Equal(ids(its), []string{branchA, branchC}) {
		t.Fatalf("listed %v (%v), want branches a and c", ids(its), err)
	}
}
