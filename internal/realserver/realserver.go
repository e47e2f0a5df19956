// Package realserver names the real LangGraph Agent Servers that scripts/test
// starts for the tests: the JavaScript dev server (`langgraphjs dev`) and the
// Python one (`langgraph dev` from langgraph-cli[inmem]), and the
// production-shaped ones: two langhost replicas (langgraph-api on PostgreSQL
// and Redis) on one database, and aegra (an open-source Agent Protocol
// server). Tests that prove a backend behaviour run once per server All
// returns; the suites that must hold where LangGraph runs at scale add
// Production's.
package realserver

import (
	"os"
	"sync"
	"testing"
	"time"
)

// Kind tells the two servers apart where their wire differs.
type Kind string

const (
	JS     Kind = "langgraphjs"  // langgraphjs dev, testserver/
	Python Kind = "langgraph-py" // langgraph dev, testserver/python/
	// Langhost: two replicas of `langhost serve` (langgraph-runtime-pg) on
	// one PostgreSQL database and one Redis, serving testserver/python/.
	Langhost Kind = "langhost"
	// Aegra: `aegra-api` on PostgreSQL, serving testserver/python/.
	Aegra Kind = "aegra"
)

// Server is one real server that scripts/test started.
type Server struct {
	Kind Kind
	URL  string
	// Peer is another address of the same deployment: langhost's second
	// replica (on the same database). Elsewhere it is URL.
	Peer string
}

// Name is the server's name in subtest names ("langgraphjs", "langgraph-py").
func (s Server) Name() string { return string(s.Kind) }

// env names the variable scripts/test sets for each server.
var env = []struct {
	kind Kind
	name string
}{
	{JS, "HITL_TEST_LANGGRAPH_URL"},
	{Python, "HITL_TEST_LANGGRAPH_PY_URL"},
}

// production names the variables of the production-shaped servers; peer,
// when set, names the deployment's second replica.
var production = []struct {
	kind       Kind
	name, peer string
}{
	{Langhost, "HITL_TEST_LANGHOST_A_URL", "HITL_TEST_LANGHOST_B_URL"},
	{Aegra, "HITL_TEST_AEGRA_URL", ""},
}

// Production returns the production-shaped servers scripts/test started
// (langhost, with its second replica as Peer, and aegra). As with All,
// none outside scripts/test, and a missing one fails the test under CI.
func Production(t testing.TB) []Server {
	t.Helper()
	var out []Server
	for _, e := range production {
		u := os.Getenv(e.name)
		if u == "" {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not set: run the tests with scripts/test", e.name)
			}
			continue
		}
		s := Server{Kind: e.kind, URL: u, Peer: u}
		if e.peer != "" {
			if s.Peer = os.Getenv(e.peer); s.Peer == "" {
				t.Fatalf("%s is set but %s is not", e.name, e.peer)
			}
		}
		out = append(out, s)
	}
	return out
}

// Everywhere returns All's servers and then Production's.
func Everywhere(t testing.TB) []Server {
	t.Helper()
	return append(All(t), Production(t)...)
}

// All returns every real server scripts/test started. Outside scripts/test it
// returns none (the tests that need one are skipped); under CI, where
// scripts/test always starts both, a missing one fails the test.
func All(t testing.TB) []Server {
	t.Helper()
	var out []Server
	for _, e := range env {
		if u := os.Getenv(e.name); u != "" {
			out = append(out, Server{Kind: e.kind, URL: u, Peer: u})
		} else if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set: run the tests with scripts/test", e.name)
		}
	}
	return out
}

// Get returns the server of one kind, skipping the test where scripts/test
// did not start it (and failing under CI).
func Get(t testing.TB, k Kind) Server {
	t.Helper()
	for _, s := range Everywhere(t) {
		if s.Kind == k {
			return s
		}
	}
	t.Skipf("no %s server: run the tests with scripts/test", k)
	return Server{}
}

// A2A returns the URL of the scripted A2A agent scripts/test started
// (testserver/a2a/, HITL_TEST_A2A_URL), skipping the test where it did not
// (and failing under CI).
func A2A(t testing.TB) string {
	t.Helper()
	if u := os.Getenv("HITL_TEST_A2A_URL"); u != "" {
		return u
	}
	if os.Getenv("CI") != "" {
		t.Fatal("HITL_TEST_A2A_URL is not set: run the tests with scripts/test")
	}
	t.Skip("no A2A test agent: run the tests with scripts/test")
	return ""
}

// held is one lock per server URL (see Hold and Share).
var held sync.Map // URL -> *sync.RWMutex

// Hold gives t the server at url to itself until t ends: a test that lists
// or counts what the whole server holds, acts on more than its own threads
// (a bulk decision, watch, a hub's watcher) or shows the whole inbox on a
// screen (whose keys are ignored for a moment after the list changes) must
// not see another test's threads come and go. Tests on the other servers
// run meanwhile.
func Hold(t testing.TB, url string) { take(t, url, false) }

// Share gives t the server at url beside the other tests that share it,
// never beside one that holds it (Hold): for a test that touches only the
// threads it starts and lists the server only to find them (by thread id,
// interrupt id or an assistant no other test uses), so that another test's
// threads in its listing change nothing it asserts.
func Share(t testing.TB, url string) { take(t, url, true) }

func take(t testing.TB, url string, shared bool) {
	t.Helper()
	v, _ := held.LoadOrStore(url, new(sync.RWMutex))
	m := v.(*sync.RWMutex)
	lock, unlock, how := m.Lock, m.Unlock, "held"
	if shared {
		lock, unlock, how = m.RLock, m.RUnlock, "shared"
	}
	asked := time.Now()
	lock()
	got := time.Now()
	// The waits and holds, in -v's output: what to read when the test
	// command grows slow (the holds on one server are a queue, and its
	// longest is the test command's length).
	t.Logf("realserver: %s %s after waiting %.1fs", how, url, got.Sub(asked).Seconds())
	t.Cleanup(func() {
		t.Logf("realserver: let go of %s after %.1fs", url, time.Since(got).Seconds())
		unlock()
	})
}
