// Package backendtest is the conformance suite every backend passes: it
// discovers, reads and decides interrupts, refuses what was handled
// elsewhere, and reports server errors and bad JSON in words a user can act
// on. Each backend runs it against its fake, and LangGraph also against the
// real server.
package backendtest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// Fixture is one backend under test.
type Fixture struct {
	Backend client.Backend
	// Create makes a new pending interrupt and returns its thread (or run,
	// or session) id.
	Create func(t *testing.T) string
	// Decide returns allowed decisions for the created interrupt.
	Decide func(it client.Interrupt) []client.Decision
	// Verify checks that the decision reached the agent.
	Verify func(t *testing.T, it client.Interrupt)
	// ResolveElsewhere answers the interrupt as another reviewer would.
	ResolveElsewhere func(t *testing.T, it client.Interrupt)
	// Faults, when set, makes the server answer badly: "500" or "html".
	Faults *Faults
}

// Faults wraps a server's handler to inject bad answers.
type Faults struct {
	mu   sync.Mutex
	mode string
}

// Set switches the fault mode ("" for none).
func (f *Faults) Set(mode string) {
	f.mu.Lock()
	f.mode = mode
	f.mu.Unlock()
}

// Wrap returns h with faults injected.
func (f *Faults) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		mode := f.mode
		f.mu.Unlock()
		switch mode {
		case "500":
			http.Error(w, "internal error: database is locked", http.StatusInternalServerError)
		case "html":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body>Bad gateway</body></html>"))
		default:
			h.ServeHTTP(w, r)
		}
	})
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
		r, err := client.Encode(&it.Payload, f.Decide(it), client.EncodeOptions{Reviewer: "suite"})
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Backend.Send(ctx, it, r)
		if err != nil || out.Status == client.Failed {
			t.Fatalf("send: %+v %v", out, err)
		}
		if again, ok := find(t, f.Backend, thread); ok && again.ID == it.ID {
			t.Fatal("still pending after the decision")
		}
		f.Verify(t, it)
	})
	t.Run("already handled elsewhere", func(t *testing.T) {
		thread := f.Create(t)
		it, _ := find(t, f.Backend, thread)
		f.ResolveElsewhere(t, it)
		r, err := client.Encode(&it.Payload, f.Decide(it), client.EncodeOptions{Reviewer: "suite"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Backend.Send(ctx, it, r); !errors.Is(err, client.ErrAlreadyHandled) {
			t.Fatalf("err = %v, want already handled", err)
		}
	})
	if f.Faults == nil {
		return
	}
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
