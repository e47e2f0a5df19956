// Package backendtest is the conformance suite every backend passes: it
// discovers, reads and decides interrupts through the decision pipeline,
// refuses what was handled elsewhere, lets exactly one of two racing
// reviewers win, finds a decision whose answer was lost, and reports server
// errors and bad JSON in words a user can act on. Each backend runs it
// against its fake, and LangGraph also against the real server.
package backendtest

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/decide"
)

// Fixture is one backend under test.
type Fixture struct {
	Backend client.Backend
	// Other is a second client of the same server (another reviewer).
	Other client.Backend
	// Create makes a new pending interrupt and returns its thread (or run,
	// or session) id.
	Create func(t *testing.T) string
	// Decide returns allowed decisions for the created interrupt; Reject
	// returns others (the second reviewer's), or nil when Decide's serve.
	Decide func(it client.Interrupt) []client.Decision
	Reject func(it client.Interrupt) []client.Decision
	// Verify checks that the decision reached the agent.
	Verify func(t *testing.T, it client.Interrupt)
	// ResolveElsewhere answers the interrupt as another reviewer would.
	ResolveElsewhere func(t *testing.T, it client.Interrupt)
	// Faults, when set, makes the server answer badly (see Faults.Set).
	Faults *Faults
	// Races is how many two-reviewer races to run (1 when 0).
	Races int
	// Unconfirmable: the server cannot show whose decision took effect
	// (aegra). A racing reviewer may then be told "sent, but this server
	// cannot confirm it was yours" (decide.Unconfirmed), never "sent"
	// beside another "sent"; a reviewer alone is told "sent".
	Unconfirmable bool
}

// Faults wraps a server's handler to inject bad answers.
type Faults struct {
	mu   sync.Mutex
	mode string
}

// Set switches the fault mode ("" for none):
//   - "500": every request gets HTTP 500;
//   - "html": every request gets an HTML page;
//   - "lose-answer": writes (POST) are served, then the connection is
//     closed without the answer (the server acted; the client cannot know);
//   - "drop-write": writes are dropped before the server sees them;
//   - "poison": every list the server answers (a JSON array) gets the
//     Poison entries first.
func (f *Faults) Set(mode string) {
	f.mu.Lock()
	f.mode = mode
	f.mu.Unlock()
}

// Mode is the fault mode in force (for a backend whose reads and writes
// one URL and method cannot tell apart, which wraps its server itself).
func (f *Faults) Mode() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mode
}

// Wrap returns h with faults injected.
func (f *Faults) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		mode := f.mode
		f.mu.Unlock()
		write := r.Method == http.MethodPost && !strings.HasSuffix(r.URL.Path, "/search") && !strings.HasSuffix(r.URL.Path, "/history")
		switch {
		case mode == "500":
			http.Error(w, "internal error: database is locked", http.StatusInternalServerError)
		case mode == "html":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body>Bad gateway</body></html>"))
		case mode == "lose-answer" && write:
			h.ServeHTTP(httptest.NewRecorder(), r)
			hangUp(w)
		case mode == "drop-write" && write:
			hangUp(w)
		case mode == "poison":
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			body := bytes.TrimSpace(rec.Body.Bytes())
			if rec.Code == http.StatusOK && bytes.HasPrefix(body, []byte("[")) {
				rest := bytes.TrimSpace(body[1:])
				body = append([]byte("["+strings.Join(Poison(), ",")), append([]byte{','}, rest...)...)
				if bytes.HasPrefix(rest, []byte("]")) {
					body = append([]byte("["+strings.Join(Poison(), ",")), rest...)
				}
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			w.Write(body)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// PoisonID is the id of the Poison entry nested too deep, in every
// backend's terms.
const PoisonID = "poison-deep"

// Poison is entries of a list that no backend can read as an interrupt,
// each shaped as every backend's list item at once (a LangGraph thread, a
// REST approval, an event-stream request, an A2A task, an opencode
// permission request): one whose payload nests 100,000 levels deep (past
// encoding/json's limit), one whose fields have the wrong types, and one
// that is not an object.
func Poison() []string {
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	return []string{
		`{"id":"` + PoisonID + `","thread_id":"` + PoisonID + `","request_id":"` + PoisonID + `","approval_id":"` + PoisonID + `","run_id":"` + PoisonID + `",` +
			`"permission":"bash",` +
			`"status":"interrupted","created_at":"2026-01-01T00:00:00Z","interrupts":{"t":[{"id":"` + PoisonID + `","value":` + deep + `}]},` +
			`"data":` + deep + `,"extra":` + deep + `}`,
		`{"id":7,"thread_id":7,"request_id":7,"approval_id":7,"interrupts":"none","data":{}}`,
		`42`,
	}
}

// hangUp closes the client's connection without an answer.
func hangUp(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

func find(t *testing.T, b client.Backend, thread string) (client.Interrupt, bool) {
	t.Helper()
	its, err := b.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range its {
		if it.ThreadID == thread {
			return it, true
		}
	}
	return client.Interrupt{}, false
}

func pipeline(t *testing.T, b client.Backend, reviewer string) *decide.Pipeline {
	t.Helper()
	j, err := journal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &decide.Pipeline{Backend: b, Journal: j, Reviewer: reviewer}
}

// Send sends decisions for it through a pipeline of its own (no journal
// kept past the test) and returns the result.
func Send(t *testing.T, b client.Backend, reviewer string, it client.Interrupt, ds ...client.Decision) *decide.Result {
	t.Helper()
	return submit(t, pipeline(t, b, reviewer), it, ds)
}

func submit(t *testing.T, p *decide.Pipeline, it client.Interrupt, ds []client.Decision) *decide.Result {
	t.Helper()
	subs, err := p.Prepare([]decide.Draft{{Interrupt: it, Decisions: ds}})
	if err != nil {
		t.Fatal(err)
	}
	return p.Send(context.Background(), subs[0])
}

// Run runs the suite.
func Run(t *testing.T, f Fixture) {
	ctx := context.Background()
	t.Run("discover and read", func(t *testing.T) {
		thread := f.Create(t)
		it, ok := find(t, f.Backend, thread)
		if !ok {
			t.Fatalf("the new interrupt of %s is not listed", thread)
		}
		if it.ID == "" || it.Schema == "" || it.Title == "" || it.Slots() < 1 || len(it.Raw) == 0 || it.Server == "" {
			t.Fatalf("incomplete interrupt: %+v", it)
		}
	})
	t.Run("decide", func(t *testing.T) {
		thread := f.Create(t)
		it, _ := find(t, f.Backend, thread)
		p := pipeline(t, f.Backend, "suite")
		res := submit(t, p, it, f.Decide(it))
		// One reviewer alone is told "sent" also where the server cannot
		// show whose decision a run carried (Unconfirmable): no other run
		// was started on the thread since the interrupt was raised.
		if res.Kind != decide.Sent || res.Run.Status == client.Failed {
			t.Fatalf("send: %s", res.Text())
		}
		if again, ok := find(t, f.Backend, thread); ok && again.ID == it.ID {
			t.Fatal("still pending after the decision")
		}
		// An unconfirmed send too: this machine sent it; its audit
		// entry says the server could not confirm whose it was.
		if !p.Journal.IsHandled(it.ID) {
			t.Fatal("not recorded as handled")
		}
		if e, ok := p.Journal.Last(it.ID); !ok || e.DecisionID == "" ||
			(!e.Outcome.Took() && !(f.Unconfirmable && e.Outcome == journal.Unconfirmed)) {
			t.Fatalf("audit: %+v", e)
		}
		f.Verify(t, it)
	})
	t.Run("already handled elsewhere", func(t *testing.T) {
		thread := f.Create(t)
		it, _ := find(t, f.Backend, thread)
		f.ResolveElsewhere(t, it)
		p := pipeline(t, f.Backend, "suite")
		res := submit(t, p, it, f.Decide(it))
		if res.Kind != decide.HandledElsewhere || !errors.Is(res.Err(), client.ErrAlreadyHandled) ||
			!strings.Contains(res.Text(), "already handled elsewhere; nothing sent") {
			t.Fatalf("got %s: %s", res.Kind, res.Text())
		}
		if !p.Journal.Hidden()[it.ID] || !p.Journal.IsElsewhere(it.ID) {
			t.Fatal("an interrupt answered on the server is not recorded as answered elsewhere")
		}
		if p.Journal.IsHandled(it.ID) {
			t.Fatal("an interrupt answered by another decision is recorded as handled from this machine")
		}
	})
	if f.Other != nil {
		t.Run("two reviewers race: exactly one is told sent", func(t *testing.T) {
			rounds := max(f.Races, 1)
			kinds := map[decide.Kind]int{}
			twoSent := 0
			for round := range rounds {
				thread := f.Create(t)
				it, _ := find(t, f.Backend, thread)
				alice, bob := pipeline(t, f.Backend, "alice"), pipeline(t, f.Other, "bob")
				other := f.Decide(it)
				if f.Reject != nil {
					other = f.Reject(it)
				}
				var wg sync.WaitGroup
				var ra, rb *decide.Result
				wg.Add(2)
				go func() { defer wg.Done(); ra = submit(t, alice, it, f.Decide(it)) }()
				go func() { defer wg.Done(); rb = submit(t, bob, it, other) }()
				wg.Wait()
				sent, unconfirmed := 0, 0
				for _, r := range []*decide.Result{ra, rb} {
					kinds[r.Kind]++
					switch r.Kind {
					case decide.Sent:
						sent++
					case decide.Unconfirmed:
						if !f.Unconfirmable {
							t.Fatalf("round %d: unconfirmed on a server that shows whose decision took effect: %s", round, r.Text())
						}
						unconfirmed++
					case decide.HandledElsewhere, decide.Busy:
					default:
						t.Fatalf("round %d: unexpected %s: %s", round, r.Kind, r.Text())
					}
				}
				if sent > 1 {
					twoSent++
				}
				if sent > 1 || (sent+unconfirmed == 0) || (sent == 0 && !f.Unconfirmable) {
					t.Fatalf("round %d: %d reviewers told sent:\n  alice: %s\n  bob: %s", round, sent, ra.Text(), rb.Text())
				}
				// Only the winner's journal calls the answer its own.
				for _, x := range []struct {
					p *decide.Pipeline
					r *decide.Result
				}{{alice, ra}, {bob, rb}} {
					if got := x.p.Journal.IsHandled(it.ID); got != (x.r.Kind == decide.Sent || x.r.Kind == decide.Unconfirmed) {
						t.Fatalf("round %d: %s (%s): recorded as handled from this machine: %v", round, x.p.Reviewer, x.r.Kind, got)
					}
					if x.r.Kind == decide.HandledElsewhere && !x.p.Journal.IsElsewhere(it.ID) {
						t.Fatalf("round %d: %s lost the race: not recorded as answered elsewhere", round, x.p.Reviewer)
					}
				}
			}
			t.Logf("%d races: %d with two told sent; outcomes %v", rounds, twoSent, kinds)
		})
	}
	if f.Faults == nil {
		return
	}
	t.Run("a poisoned item is one item, the others stay answerable", func(t *testing.T) {
		thread := f.Create(t)
		f.Faults.Set("poison")
		defer f.Faults.Set("")
		its, err := f.Backend.Pending(ctx)
		if err != nil {
			t.Fatalf("one poisoned item hides them all: %v", err)
		}
		var normal *client.Interrupt
		unreadable := map[string]string{}
		for i, it := range its {
			switch {
			case it.ThreadID == thread:
				normal = &its[i]
			case it.Schema == client.SchemaUnreadable:
				if it.Problem == "" || it.Slots() != 1 || len(it.Allowed) != 0 || string(it.Raw) != "null" || len(it.Bytes) == 0 {
					t.Errorf("an unreadable item that does not say why, or can be answered: %+v", it)
				}
				unreadable[it.ID] = it.Problem
			}
		}
		if normal == nil {
			t.Fatalf("the interrupt of %s is not listed beside the poisoned ones: %d items", thread, len(its))
		}
		if len(unreadable) < 3 || !strings.Contains(unreadable[PoisonID], "levels deep") {
			t.Fatalf("want 3 unreadable items, the deep one named %s: %q", PoisonID, unreadable)
		}
		// An entry with no id of its own is named by the one rule every
		// backend shares (client.UnreadableID of its bytes).
		for _, entry := range Poison()[1:] {
			want := client.UnreadableID([]byte(entry))
			named := false
			for _, it := range its {
				named = named || it.ID == want || it.ThreadID == want
			}
			if !named {
				t.Errorf("no item is named %s for the entry %s", want, entry)
			}
		}
		if _, err := client.Encode(&its[0].Payload, nil, client.EncodeOptions{}); err == nil && its[0].Schema == client.SchemaUnreadable {
			t.Error("an unreadable item can be answered")
		}
		res := Send(t, f.Backend, "suite", *normal, f.Decide(*normal)...)
		if res.Kind != decide.Sent {
			t.Fatalf("the interrupt beside the poisoned ones: %s", res.Text())
		}
	})
	t.Run("a lost answer is found, not sent again", func(t *testing.T) {
		thread := f.Create(t)
		it, _ := find(t, f.Backend, thread)
		p := pipeline(t, f.Backend, "suite")
		subs, err := p.Prepare([]decide.Draft{{Interrupt: it, Decisions: f.Decide(it)}})
		if err != nil {
			t.Fatal(err)
		}
		// The fault hits writes only: the reads that look for the lost
		// answer go through.
		f.Faults.Set("lose-answer")
		res := p.Send(ctx, subs[0])
		f.Faults.Set("")
		if res.Kind != decide.Sent {
			t.Fatalf("got %s: %s", res.Kind, res.Text())
		}
		f.Verify(t, it)
	})
	t.Run("a resume dropped before the server is not sent", func(t *testing.T) {
		thread := f.Create(t)
		it, _ := find(t, f.Backend, thread)
		p := pipeline(t, f.Backend, "suite")
		p.Settle = 1
		subs, err := p.Prepare([]decide.Draft{{Interrupt: it, Decisions: f.Decide(it)}})
		if err != nil {
			t.Fatal(err)
		}
		f.Faults.Set("drop-write")
		res := p.Send(ctx, subs[0])
		f.Faults.Set("")
		if res.Kind != decide.NotSent || !errors.Is(res.Err(), decide.ErrNotSent) {
			t.Fatalf("got %s: %s", res.Kind, res.Text())
		}
		if p.Journal.IsHandled(it.ID) {
			t.Fatal("a decision that never arrived hides the interrupt")
		}
		if again, ok := find(t, f.Backend, thread); !ok || again.ID != it.ID {
			t.Fatal("the interrupt no longer waits")
		}
	})
	t.Run("server errors", func(t *testing.T) {
		f.Faults.Set("500")
		defer f.Faults.Set("")
		_, err := f.Backend.Pending(ctx)
		if err == nil || !strings.Contains(err.Error(), "HTTP 500") || !strings.Contains(err.Error(), "database is locked") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("bad JSON", func(t *testing.T) {
		f.Faults.Set("html")
		defer f.Faults.Set("")
		_, err := f.Backend.Pending(ctx)
		if err == nil || !strings.Contains(err.Error(), "not the expected JSON") || !strings.Contains(err.Error(), "--url") {
			t.Fatalf("err = %v", err)
		}
	})
}
