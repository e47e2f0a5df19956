package main

// What a new user found trying the CLI with only the README.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/demo"
)

// A claim this state folder's hitl (the TUI) left is this machine's own:
// show says so, not that someone races you, by the rule the decide path
// uses (which sends without a note); another reviewer's claim still warns.
func TestShowTellsOwnClaimFromAnothers(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		th := s.start("prompt", map[string]any{"topic": "string"})
		id := s.onlyPending(th).ID
		j, err := journal.Open(config.StateDir(envOf(t).getenv))
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		claim := func(reviewer, client string) {
			s.do("PATCH", "/threads/"+th, map[string]any{"metadata": map[string]any{"hitl_claim_" + id + "_" + client: map[string]any{
				"reviewer": reviewer, "client": client, "interrupt_id": id,
				"since": now.Add(-3 * time.Minute), "expires": now.Add(time.Minute)}}})
		}
		claim("root", j.ID())
		r := s.hitl("", "show", id[:4])
		must(t, r, 0, "Editing    being edited in hitl on this machine (3m)\n")
		if strings.Contains(r.stdout, "race") || strings.Contains(r.stdout, "root is editing") {
			t.Fatalf("this machine's own claim is shown as another reviewer's:\n%s", r.stdout)
		}
		if r := s.hitl("", "respond", id, "-m", "cli", "--dry-run"); strings.Contains(r.stderr, "race") {
			t.Fatalf("the decide path warns of this machine's own claim: %s", r.stderr)
		}

		claim("carol", "carols-laptop")
		r = s.hitl("", "show", id)
		must(t, r, 0, "Editing    carol is editing (3m): a decision now may race theirs\n")
		must(t, r, 0, "Editing    being edited in hitl on this machine (3m)\n")
	})
}

// The README's quickstart makes its own thread id and runs on it with
// if_not_exists "create": the server makes the thread (the real ones do,
// and so must the demo's), and hitl lists what the run asked.
func TestRunOnANewThreadIDCreatesIt(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		th := newThreadUUID(t)
		s.do("POST", "/threads/"+th+"/runs/wait", map[string]any{"assistant_id": s.graph("email"), "if_not_exists": "create",
			"input": map[string]any{"messages": []any{map[string]string{"role": "user", "content": "email"}}}})
		it := s.onlyPending(th)
		if len(it.Actions) != 1 || it.Actions[0].Name != "send_email" {
			t.Fatalf("the run on the new thread asked %+v", it)
		}
		must(t, s.hitl("", "list"), 0, it.ID[:8])
	})
}

// newThreadUUID is a fresh random UUID (version 4), as a client makes one.
func newThreadUUID(t *testing.T) string {
	t.Helper()
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// A result names a thread by the start of its id, which the commands that
// take a thread accept: what dismiss printed shows the conversation, for a
// UUIDv4 (also its first 4 characters) and for a UUIDv7 (the Python
// server's, whose first characters are a clock many threads share).
func TestResultNamesThreadByAPrefixCommandsTake(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		for _, th := range []string{newThreadUUID(t), newThreadUUIDv7(t)} {
			s.do("POST", "/threads/"+th+"/runs/wait", map[string]any{"assistant_id": s.graph("email"), "if_not_exists": "create",
				"input": map[string]any{"messages": []any{map[string]string{"role": "user", "content": "email"}}}})
			id := s.onlyPending(th).ID
			r := s.hitl("", "dismiss", id[:8], "-m", "handled by phone")
			m := regexp.MustCompile(`\(thread ([^)]+)\)`).FindStringSubmatch(r.stdout)
			if r.code != 0 || m == nil || !strings.HasPrefix(th, m[1]) {
				t.Fatalf("dismiss on thread %s: exit %d, printed no start of it:\n%s%s", th, r.code, r.stdout, r.stderr)
			}
			if th[14] == '4' {
				must(t, s.hitl("", "conversation", m[1][:4]), 0, "handled by phone")
			}
			must(t, s.hitl("", "conversation", m[1]), 0, "handled by phone")
		}
	})
}

// newThreadUUIDv7 is a UUIDv7 made now: the Python server's thread ids.
func newThreadUUIDv7(t *testing.T) string {
	t.Helper()
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	ms := uint64(time.Now().UnixMilli())
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	b[6], b[8] = b[6]&0x0f|0x70, b[8]&0x3f|0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// look_every and poll_interval are told apart the same way in hitl help
// config, the starter config file and docs/config.md: one asks a LangGraph
// server whether anything changed, the other re-reads the listing when no
// change signal came.
func TestLookEveryAndPollIntervalSaidApartAlike(t *testing.T) {
	help := hitl(t, "", "help", "config")
	must(t, help, 0, "look_every")
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"hitl help config": help.stdout, "the starter config": config.Starter, "docs/config.md": string(doc)} {
		flat := strings.Join(strings.Fields(strings.ReplaceAll(text, "#", "")), " ")
		for _, want := range []string{
			"how often a watching reviewer (TUI, watch, serve) asks a LangGraph server whether anything changed: one small request, at least 50ms",
			"new interrupts show about this long after they happen",
			"how often it re-reads the listing when no change signal came",
			"costs a LangGraph server nothing while nothing changed",
		} {
			if !strings.Contains(strings.ReplaceAll(flat, "`", ""), want) {
				t.Errorf("%s does not say %q:\n%s", name, want, flat)
			}
		}
	}
}

// Every field a watch --json line can carry (client.Interrupt as JSON,
// nested members included) is in docs/commands.md's --json section; and
// a watched question with a deadline carries expires_at, default_decision
// and server, as documented.
func TestWatchJSONFieldsAreDocumented(t *testing.T) {
	t.Parallel()
	isolate(t)
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "commands.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	if i := strings.Index(section, "## `--json` output"); i >= 0 {
		section = section[i:]
	}
	if i := strings.Index(section[1:], "\n## "); i >= 0 {
		section = section[:i+1]
	}
	for _, key := range jsonKeys(reflect.TypeOf(client.Interrupt{}), map[reflect.Type]bool{}) {
		if !strings.Contains(section, `"`+key+`"`) {
			t.Errorf("docs/commands.md's --json output does not document %q", key)
		}
	}

	srv := demo.New()
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	th, err := srv.Spawn("waiter", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"--url", srv.URL(), "watch", "--json"}, strings.NewReader(""), out, io.Discard, envOf(t).getenv)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), th) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	var line map[string]json.RawMessage
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.Contains(l, th) {
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
		}
	}
	if line == nil {
		t.Fatalf("watch never printed thread %s:\n%s", th, out.String())
	}
	for _, key := range []string{"expires_at", "default_decision", "server"} {
		if _, ok := line[key]; !ok {
			t.Errorf("the line of a question with a deadline has no %q: %v", key, line)
		}
	}
	for key := range line {
		if !strings.Contains(section, `"`+key+`"`) {
			t.Errorf("watch --json printed %q, which docs/commands.md does not document", key)
		}
	}
}

// jsonKeys are the JSON member names of t's fields, embedded structs'
// flattened, and of the structs its fields hold.
func jsonKeys(t reflect.Type, seen map[reflect.Type]bool) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] || t == reflect.TypeOf(time.Time{}) {
		return nil
	}
	seen[t] = true
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			out = append(out, jsonKeys(f.Type, seen)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		out = append(out, name)
		out = append(out, jsonKeys(f.Type, seen)...)
	}
	return out
}

// Plain hitl watch prints the rows hitl list prints (the same badge for
// the shape, piped or not), and every summary starts in one column, after
// the widest badge ([questions] included).
func TestWatchAndListRowsAlike(t *testing.T) {
	t.Parallel()
	isolate(t)
	srv := demo.New()
	srv.Seed(0)
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	list := hitl(t, "", "--url", srv.URL(), "list")
	must(t, list, 0, "[questions]")
	rows := strings.Split(strings.TrimSpace(list.stdout), "\n")
	if !strings.HasPrefix(rows[0], "ID ") || len(rows) < 10 {
		t.Fatalf("list:\n%s", list.stdout)
	}
	header, rows := rows[0], rows[1:]

	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"--url", srv.URL(), "watch"}, strings.NewReader(""), out, io.Discard, envOf(t).getenv)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "\n") < len(rows) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	watched := map[string]string{}
	for _, r := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		watched[strings.Fields(r)[0]] = r
	}
	// The age column may have ticked between the two.
	noAge := func(r string) string { return r[:8] + r[14:] }
	summaryAt := strings.Index(header, "SUMMARY")
	for _, r := range rows {
		id := strings.Fields(r)[0]
		if w, ok := watched[id]; !ok || noAge(w) != noAge(r) {
			t.Errorf("list and watch print %s differently:\nlist:  %s\nwatch: %s", id, r, w)
		}
		if strings.Contains(r, "hitl-middleware") {
			t.Errorf("list names the shape, not its badge: %s", r)
		}
		if len(r) <= summaryAt || r[summaryAt-2:summaryAt] != "  " || r[summaryAt] == ' ' {
			t.Errorf("the summary does not start under SUMMARY (column %d):\n%s\n%s", summaryAt, header, r)
		}
	}
}
