package tui

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/demo"
)

// attentiveBackend is the fake backend with a watcher that is told when
// the reviewer comes and goes; told is what it was told, in order.
type attentiveBackend struct {
	*fake.Backend
	mu   sync.Mutex
	told []bool
}

func (a *attentiveBackend) Changes(context.Context) <-chan struct{} { return make(chan struct{}) }

func (a *attentiveBackend) Features() client.Features {
	f := a.Backend.Features()
	f.Notifier, f.Attentive = a, a
	return f
}

func (a *attentiveBackend) Attend(there bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.told = append(a.told, there)
}

func (a *attentiveBackend) said() []bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.told)
}

// The backend is told once when the reviewer goes (three minutes after
// the start or the last key, unless the terminal says it has the focus)
// and once when they come back (a key, the focus).
func TestTheWatcherIsToldWhenTheReviewerGoes(t *testing.T) {
	ab := &attentiveBackend{Backend: fake.New(fixture(t, "middleware-js-email", idEmail, time.Minute))}
	h := newHarnessOn(t, 100, 30, nil, ab)
	want := func(what string, told ...bool) {
		t.Helper()
		if got := ab.said(); !slices.Equal(got, told) {
			t.Fatalf("%s: the watcher was told %v, want %v", what, got, told)
		}
	}
	if at := h.m.clock.at; at.IsZero() || at.After(t0.Add(awayAfter)) {
		t.Fatalf("no tick by the time the reviewer counts as gone: %v", at)
	}
	h.tick(awayAfter - time.Second)
	want("just started")
	h.tick(time.Second)
	want("three minutes without a key", false)
	h.tick(time.Minute)
	want("still gone", false)
	h.keys("j")
	want("a key", false, true)
	h.tick(awayAfter - time.Second)
	want("a key 2m59s ago", false, true)

	// A terminal that reports focus: there while it has it, whatever the keys.
	h.msg(tea.FocusMsg{})
	h.tick(time.Hour)
	want("focused", false, true)
	h.msg(tea.BlurMsg{})
	want("the focus lost, no key for an hour", false, true, false)
	h.msg(tea.FocusMsg{})
	want("the focus back", false, true, false, true)
	h.msg(tea.BlurMsg{})
	h.keys("k")
	want("a key while the terminal has not the focus", false, true, false, true, false, true)
}

// inMemory answers every request with h in the calling goroutine: no
// socket, so that the test's clock (testing/synctest) moves only when
// everything waits on it.
type inMemory struct{ h http.Handler }

func (m inMemory) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	m.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// onScreen is the app as Bubble Tea runs it, noting after each message
// which interrupts the inbox shows.
type onScreen struct {
	m     *Model
	mu    sync.Mutex
	shown map[string]bool
}

func (o *onScreen) Init() tea.Cmd  { return o.m.Init() }
func (o *onScreen) View() tea.View { return o.m.View() }
func (o *onScreen) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := o.m.Update(msg)
	o.mu.Lock()
	o.shown = map[string]bool{}
	for _, it := range o.m.items.shown {
		o.shown[it.ThreadID] = true
	}
	o.mu.Unlock()
	return o, cmd
}

func (o *onScreen) shows(thread string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.shown[thread]
}

// The requests an idle TUI sends its server, counted at the server on a
// clock the test moves (Bubble Tea's program, the TUI and the LangGraph
// backend as the binary runs them; the demo server in memory): about five
// a second while the reviewer is there, at most 12 a minute once left
// alone for three minutes, and a key brings a new interrupt on screen
// within two seconds.
func TestAnIdleTUIAsksItsServerLittle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := demo.New()
		srv.Seed(5)
		var requests atomic.Int64
		count := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			srv.Handler().ServeHTTP(w, r)
		})
		b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: "http://demo.invalid"}})
		if err != nil {
			t.Fatal(err)
		}
		rt := inMemory{count}
		b.Reads.SetTransport(rt)
		b.Writes.SetTransport(rt)
		b.Long.SetTransport(rt)
		b.HTTPClient().Transport = rt
		j, err := journal.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		m, err := New(Options{Backend: b, Journal: j, Reviewer: "tester", Context: ctx})
		if err != nil {
			t.Fatal(err)
		}
		o := &onScreen{m: m}
		p := tea.NewProgram(o, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignalHandler(),
			tea.WithWindowSize(100, 30))
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = p.Run()
		}()
		defer func() {
			p.Quit()
			<-done
			cancel()
			time.Sleep(48 * time.Hour) // the ticks still in flight (Bubble Tea does not stop them)
			synctest.Wait()
		}()

		perMinute := func() int64 {
			n := requests.Load()
			time.Sleep(time.Minute)
			synctest.Wait()
			return requests.Load() - n
		}
		start := time.Now()
		time.Sleep(time.Second) // the first listing
		synctest.Wait()
		if there := perMinute(); there < 250 {
			t.Fatalf("while the reviewer is there: %d requests a minute, want about 300", there)
		}
		time.Sleep(time.Until(start.Add(awayAfter + time.Second))) // three minutes since the start
		synctest.Wait()
		// Over three minutes, so that a read on its own slower clock (the
		// failed runs' every two minutes) falling in one window does not
		// decide the figure.
		n := requests.Load()
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		if alone := (requests.Load() - n + 2) / 3; alone > 12 {
			t.Fatalf("left alone: %d requests a minute, want at most 12", alone)
		} else {
			t.Logf("left alone: %d requests a minute", alone)
		}

		// An interrupt arrives just after a look; the reviewer presses a
		// key a second later.
		before := requests.Load()
		for requests.Load() == before {
			time.Sleep(100 * time.Millisecond)
			synctest.Wait()
		}
		thread, err := srv.Spawn("asker", map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if o.shows(thread) {
			t.Fatal("left alone, the TUI looked again within a second")
		}
		p.Send(tea.KeyPressMsg{Code: 'j', Text: "j"})
		key := time.Now()
		for !o.shows(thread) {
			if time.Since(key) > 2*time.Second {
				t.Fatalf("the new interrupt was not on screen 2s after the key")
			}
			time.Sleep(10 * time.Millisecond)
			synctest.Wait()
		}
		t.Logf("on screen %v after the key", time.Since(key))
	})
}
