package tui

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/demo"
	"github.com/hitl-sh/hitl/present"
)

// settledBackend is the fake backend with a watcher that says, as
// client.Settled, the version of its pending set and whether its reading
// is current; lists counts the listings taken.
type settledBackend struct {
	*fake.Backend
	mu      sync.Mutex
	version uint64
	ok      bool
	lists   int
	changes chan struct{}
	// act is what Activity says (not ok: it cannot tell); failures counts
	// the readings of the failed threads.
	act      activitySeen
	failures int
}

// Features are the fake's, with the watcher's.
func (s *settledBackend) Features() client.Features {
	f := s.Backend.Features()
	f.Notifier, f.Settled, f.Activity, f.FailureLister, f.Progressive = s, s, s, s, s
	return f
}

func (s *settledBackend) Activity() (time.Time, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.act.newest, s.act.threads, s.act.ok
}

func (s *settledBackend) Failures(ctx context.Context, limit int) ([]client.Failure, int, error) {
	s.mu.Lock()
	s.failures++
	s.mu.Unlock()
	return s.Backend.Failures(ctx, limit)
}

func (s *settledBackend) failuresRead() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failures
}

func newSettled(items ...client.Interrupt) *settledBackend {
	return &settledBackend{Backend: fake.New(items...), ok: true, changes: make(chan struct{})}
}

func (s *settledBackend) Changes(context.Context) <-chan struct{} { return s.changes }

func (s *settledBackend) Settled() (uint64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version, s.ok
}

func (s *settledBackend) PendingProgress(ctx context.Context, _ func(client.Progress)) ([]client.Interrupt, error) {
	s.mu.Lock()
	s.lists++
	s.mu.Unlock()
	return s.Backend.Pending(ctx)
}

func (s *settledBackend) set(version uint64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version, s.ok = version, ok
}

func (s *settledBackend) listed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists
}

// idleHarness is the app on a settled backend, its journal in dir, loaded.
func idleHarness(t *testing.T, dir string, items ...client.Interrupt) (*harness, *settledBackend) {
	t.Helper()
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sb := newSettled(items...)
	sb.set(7, true)
	h := newHarnessWith(t, 100, 30, nil, sb, j)
	h.b = sb.Backend
	if sb.listed() != 1 {
		t.Fatalf("the first read listed %d times", sb.listed())
	}
	return h, sb
}

// idlePoll is the periodic read, PollInterval after the last one: it
// reports whether it drew a frame.
func idlePoll(h *harness) (drew bool) {
	h.t.Helper()
	h.now = h.now.Add(h.m.opts.PollInterval)
	next, cmd := h.m.Update(pollMsg{idle: true})
	h.m = next.(*Model)
	msgs := collect(cmd)
	if len(msgs) != 1 {
		h.t.Fatalf("the periodic read answered %d messages", len(msgs))
	}
	switch msgs[0].(type) {
	case unchangedMsg, pendingMsg:
	default:
		h.t.Fatalf("the periodic read answered %T", msgs[0])
	}
	frame := h.m.frame
	next, cmd = h.m.Update(msgs[0])
	h.m = next.(*Model)
	drew = !h.m.quiet || h.m.frame != frame
	h.run(cmd)
	return drew
}

// An idle reviewer's periodic read lists nothing while the watcher's
// version and the journal stand: no listing copied, sifted or compared, no
// frame; and the screen still says "updated just now", for the watcher
// looked a moment ago.
func TestIdleReadListsNothingWhileNothingChanged(t *testing.T) {
	h, sb := idleHarness(t, t.TempDir(), fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.now = h.now.Add(activeFor) // the clock no longer ticks each second
	idlePoll(h)
	h.wantScreen("updated just now")
	frame := h.m.frame
	for i := range 5 { // past the time "just now" lasts, short of the failed threads' reading
		if idlePoll(h) {
			t.Fatalf("idle poll %d drew a frame", i)
		}
	}
	if n := sb.listed(); n != 1 {
		t.Fatalf("idle polls listed %d times", n-1)
	}
	if h.m.frame != frame {
		t.Fatal("the frame changed")
	}
	h.wantScreen("updated just now", "aaaa1111", "bbbb2222")
}

// What `hitl approve` did in another process of this machine (the journal
// changed; the server's watcher has not looked yet) leaves the list at
// the next periodic read, as it did when every read listed.
func TestIdleReadTakesWhatAnotherProcessHandled(t *testing.T) {
	dir := t.TempDir()
	h, sb := idleHarness(t, dir, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	idlePoll(h)
	before := sb.listed()
	shell, err := journal.Open(dir) // the other process
	if err != nil {
		t.Fatal(err)
	}
	if err := shell.Record(journal.Entry{DecisionID: "d-shell", Time: t0, Reviewer: "root", InterruptID: idOps, Server: sb.Server(),
		Resume: json.RawMessage(`{"decisions":[{"type":"approve"}]}`), Outcome: journal.Finished}); err != nil {
		t.Fatal(err)
	}
	if err := shell.MarkHandled(idOps); err != nil {
		t.Fatal(err)
	}
	if !idlePoll(h) {
		t.Fatal("the list did not change")
	}
	if sb.listed() != before+1 {
		t.Fatalf("the journal changed: the periodic read listed %d times", sb.listed()-before)
	}
	if s := h.screen(); strings.Contains(s, "bbbb2222") || !strings.Contains(s, "aaaa1111") {
		t.Fatalf("the interrupt handled in the other process is still listed:\n%s", s)
	}
	if idlePoll(h); sb.listed() != before+1 {
		t.Fatal("the read after it listed again, though nothing changed")
	}
}

// A decision of unknown outcome written by another process shows at the
// next periodic read.
func TestIdleReadTakesAnUnknownOutcomeWrittenElsewhere(t *testing.T) {
	dir := t.TempDir()
	h, sb := idleHarness(t, dir, fixture(t, "middleware-js-email", idEmail, time.Minute))
	idlePoll(h)
	shell, _ := journal.Open(dir)
	if err := shell.Record(journal.Entry{DecisionID: "d-lost", Time: t0, Reviewer: "root", InterruptID: "cccc3333-lost", Server: sb.Server(),
		Resume: json.RawMessage(`{"decisions":[{"type":"approve"}]}`), Outcome: journal.Unknown}); err != nil {
		t.Fatal(err)
	}
	idlePoll(h)
	if len(h.m.unknown) != 1 {
		t.Fatalf("the decision of unknown outcome is not shown: %v\n%s", h.m.unknown, h.screen())
	}
}

// The watcher saw the pending set change (its version moved): the next
// periodic read lists, and shows what arrived.
func TestIdleReadListsWhenTheVersionMoves(t *testing.T) {
	h, sb := idleHarness(t, t.TempDir(), fixture(t, "middleware-js-email", idEmail, time.Minute))
	idlePoll(h)
	before := sb.listed()
	h.b.Add(fixture(t, "middleware-js-ops", idOps, 0))
	if idlePoll(h); sb.listed() != before {
		t.Fatal("the version stands, yet the periodic read listed")
	}
	sb.set(8, true)
	if !idlePoll(h) || sb.listed() != before+1 {
		t.Fatalf("the version moved: listed %d times", sb.listed()-before)
	}
	h.wantScreen("bbbb2222")
}

// The watcher is not current (it fails, or lags): the periodic read lists,
// and what the listing says shows: the server cannot be read, and the
// staleness warning counts from the last good read.
func TestIdleReadListsWhenTheWatcherIsNotCurrent(t *testing.T) {
	h, sb := idleHarness(t, t.TempDir(), fixture(t, "middleware-js-email", idEmail, time.Minute))
	idlePoll(h)
	good := h.m.lastUpdate
	before := sb.listed()
	sb.set(7, false)
	h.b.SetListErr(errors.New("connection refused"))
	idlePoll(h)
	if sb.listed() != before+1 {
		t.Fatal("the watcher is not current, yet the periodic read listed nothing")
	}
	h.wantScreen("cannot list interrupts", "connection refused")
	if !h.m.lastUpdate.Equal(good) {
		t.Fatal("a failed read moved the time of the last listing")
	}
	// The watcher is current again, its version unchanged: the read after
	// an error lists all the same.
	sb.set(7, true)
	h.b.SetListErr(nil)
	h.now = h.now.Add(h.m.backoff)
	h.msg(pollMsg{idle: true})
	if sb.listed() != before+2 {
		t.Fatal("after an error, the periodic read listed nothing")
	}
	h.wantScreen("updated just now")
}

// The failed threads are read when due, without a listing: a new failure
// shows; the same ones draw nothing.
func TestIdleReadReadsTheFailedThreadsWhenDue(t *testing.T) {
	h, sb := idleHarness(t, t.TempDir(), fixture(t, "middleware-js-email", idEmail, time.Minute))
	idlePoll(h)
	before := sb.listed()
	h.b.SetFailures(client.Failure{ThreadID: "thread-crashed", GraphID: "agent", UpdatedAt: t0.Add(-time.Hour), Error: "boom"})
	h.m.failed.now = true
	if !idlePoll(h) {
		t.Fatal("a new failed thread drew nothing")
	}
	h.wantScreen("✗ 1 thread whose run failed", "boom", "aaaa1111")
	h.m.failed.now = true
	if idlePoll(h) {
		t.Fatal("the same failed threads drew a frame")
	}
	if sb.listed() != before {
		t.Fatalf("reading the failed threads listed %d times", sb.listed()-before)
	}
}

// A change signal, a refresh and the read after a send always list.
func TestReadsOtherThanThePeriodicOneList(t *testing.T) {
	h, sb := idleHarness(t, t.TempDir(), fixture(t, "middleware-js-email", idEmail, time.Minute))
	idlePoll(h)
	before := sb.listed()
	for i, msg := range []tea.Msg{changeMsg{}, pollMsg{}} {
		next, cmd := h.m.Update(msg)
		h.m = next.(*Model)
		h.run(cmd)
		if sb.listed() != before+i+1 {
			t.Fatalf("%T listed nothing", msg)
		}
	}
}

// On the LangGraph backend (the embedded demo), the periodic read lists
// nothing while its watcher is current and has seen nothing change; a new
// thread on the server moves the watcher's version and the next read shows
// it; what another process of this machine answered leaves at the next
// read; a server gone shows at the next read.
func TestIdleReadOnTheDemo(t *testing.T) {
	srv := demo.New()
	srv.RunDelay = 0
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if _, err := srv.Spawn("asker", nil); err != nil {
		t.Fatal(err)
	}
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: srv.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, 200, 40, nil, b, j)
	// settled waits until the watcher is current and its version is not
	// old; it returns the version.
	settled := func(old uint64) uint64 {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if v, ok := b.Settled(); ok && v != old {
				return v
			}
		}
		t.Fatal("the watcher is not current after 10 s")
		return 0
	}
	// read is the periodic read; it reports whether it listed.
	read := func() (listed bool) {
		t.Helper()
		h.now = h.now.Add(h.m.opts.PollInterval)
		next, cmd := h.m.Update(pollMsg{idle: true})
		h.m = next.(*Model)
		for {
			msgs := collect(cmd)
			if len(msgs) != 1 {
				t.Fatalf("the periodic read answered %d messages", len(msgs))
			}
			next, cmd = h.m.Update(msgs[0])
			h.m = next.(*Model)
			switch msgs[0].(type) {
			case progressMsg: // a page of a long listing: the rest follows
				listed = true
				continue
			case pendingMsg:
				listed = true
			case unchangedMsg:
			default:
				t.Fatalf("the periodic read answered %T", msgs[0])
			}
			h.run(cmd)
			return listed
		}
	}
	v := settled(1 << 63)
	read() // the first read may have started before the watcher's first look
	lists := 0
	for range 10 {
		if read() {
			lists++
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A read at the instant the watcher looks lists (Settled is not ok
	// then): rare, never most of them.
	if lists > 2 {
		t.Fatalf("%d of 10 idle reads listed", lists)
	}
	thread, err := srv.Spawn("asker", nil)
	if err != nil {
		t.Fatal(err)
	}
	settled(v)
	if !read() {
		t.Fatal("the watcher's version moved, yet the read listed nothing")
	}
	var it client.Interrupt
	for _, x := range h.m.items.all {
		if x.ThreadID == thread {
			it = x
		}
	}
	short := present.ShortID(it.ID)
	if it.ID == "" || !strings.Contains(h.screen(), short) {
		t.Fatalf("the new thread's interrupt is not listed:\n%s", h.screen())
	}
	// `hitl respond` in a shell (another process, the same state folder):
	// its own backend and journal send the answer.
	shellB, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: srv.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	shellJ, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	shell := &decide.Pipeline{Backend: shellB, Journal: shellJ, Reviewer: "shell"}
	subs, err := shell.Prepare([]decide.Draft{{Interrupt: it, Resume: &client.Resume{Value: json.RawMessage(`"billing@acme.example"`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if r := shell.Send(context.Background(), subs[0]); r.Kind != decide.Sent {
		t.Fatalf("the shell's send: %s", r.Text())
	}
	if !read() {
		t.Fatal("the shell answered, yet the read listed nothing")
	}
	if strings.Contains(h.screen(), short) {
		t.Fatalf("the interrupt handled in the shell is still listed:\n%s", h.screen())
	}
	// The server goes away: the watcher is no longer current, the read
	// lists, and the screen says the listing failed.
	srv.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, ok := b.Settled(); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server is gone, yet the watcher is current after 10 s")
		}
	}
	if !read() {
		t.Fatal("the watcher is not current, yet the read listed nothing")
	}
	h.wantScreen("cannot list interrupts")
}

// Another reviewer's claim on an interrupt (thread metadata: it does not
// move the interrupt's updated_at) shows at the next periodic read, as it
// did when every read listed.
func TestIdleReadShowsAnotherReviewersClaim(t *testing.T) {
	srv := demo.New()
	srv.RunDelay = 0
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if _, err := srv.Spawn("asker", nil); err != nil {
		t.Fatal(err)
	}
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: srv.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, 200, 40, nil, b, nil)
	if len(h.m.items.all) != 1 {
		t.Fatalf("listed: %d", len(h.m.items.all))
	}
	it := h.m.items.all[0]
	alice, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: srv.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := alice.Claim(context.Background(), it, client.Claim{Reviewer: "alice", Client: "alice-1", Since: h.now, Expires: h.now.Add(5 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	// The watcher looks every 200 ms: the claim shows within a few reads.
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		idlePoll(h)
		if strings.Contains(h.screen(), "alice is editing") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("alice's claim is not shown after 3 s:\n%s", h.screen())
		}
	}
}

// While the server cannot be read, the status line counts down to the
// next try each second (a reviewer read "retrying in 16s" for a minute).
func TestRetryCountsDown(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.now = h.now.Add(time.Minute + 10*time.Second) // nothing else on screen changes by the second
	h.b.SetListErr(errors.New("connection refused"))
	h.run(h.m.fetch(false))
	h.msg(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.wantScreen("cannot list interrupts · retrying in 2s")
	if next := h.m.due(); next.IsZero() || next.After(h.now.Add(time.Second)) {
		t.Fatalf("no tick within a second while the retry counts down (next %v, now %v)", next, h.now)
	}
	// What the reviewer sees is the frame drawn (a tick that changes
	// nothing draws none), not what rendering now would give.
	for _, want := range []string{"retrying in 1s", "retrying now"} {
		h.now = h.now.Add(time.Second)
		h.msg(tickMsg{gen: h.m.clock.gen, at: h.now})
		if frame := ansi.Strip(h.m.frame); !strings.Contains(frame, "cannot list interrupts · "+want) {
			t.Fatalf("a second later the frame does not say %q:\n%s", want, frame)
		}
	}
}

// While the watcher sees no thread change (client.Activity), the failed
// threads are read every failuresQuiet, not every failuresEvery: a run
// fails only by changing its thread. The first read after a change reads
// them, and so does one where the watcher cannot tell.
func TestFailedThreadsReadWhenAThreadChanged(t *testing.T) {
	h, sb := idleHarness(t, t.TempDir(), fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.now = h.now.Add(activeFor)
	sb.mu.Lock()
	sb.act = activitySeen{newest: t0, threads: 5, ok: true}
	sb.mu.Unlock()
	h.m.failed.now = true // the next read records what the watcher says
	idlePoll(h)
	read := sb.failuresRead()
	for range int(time.Minute / h.m.opts.PollInterval) {
		idlePoll(h)
	}
	if n := sb.failuresRead() - read; n != 0 {
		t.Fatalf("a minute of idle reads, nothing changed: the failed threads read %d times", n)
	}
	sb.mu.Lock()
	sb.act.newest = t0.Add(time.Second) // a thread changed: its run may have failed
	sb.mu.Unlock()
	idlePoll(h)
	if n := sb.failuresRead() - read; n != 1 {
		t.Fatalf("after a thread changed: the failed threads read %d times, want 1", n)
	}
	for range int(failuresQuiet/h.m.opts.PollInterval) + 1 {
		idlePoll(h)
	}
	if n := sb.failuresRead() - read; n != 2 {
		t.Fatalf("over %s with nothing changed: read %d times, want once more", failuresQuiet, n-1)
	}
	sb.mu.Lock()
	sb.act.ok = false // the watcher cannot tell: every failuresEvery, as before
	sb.mu.Unlock()
	for range int(failuresEvery/h.m.opts.PollInterval) + 1 {
		idlePoll(h)
	}
	if n := sb.failuresRead() - read; n != 3 {
		t.Fatalf("the watcher could not tell: read %d times in %s, want once more", n-2, failuresEvery)
	}
}
