package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
)

// hugeInterrupt is a middleware interrupt whose args weigh about size bytes
// and whose description has many lines.
func hugeInterrupt(size int) client.Interrupt {
	var b strings.Builder
	b.WriteString(`{"actionRequests":[{"name":"bulk_update","args":{"rows":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"email":"user%d@example.com","note":"line \u001b[31m%d"}`, i, i, i)
	}
	b.WriteString(`]},"description":"` + strings.Repeat("**bold** line\\n", 5000) + `"}],"reviewConfigs":[{"actionName":"bulk_update","allowedDecisions":["approve","reject"]}]}`)
	raw := json.RawMessage(b.String())
	return client.Interrupt{ID: "ffffffffffffffffffffffffffffffff", ThreadID: "t", GraphID: "g", UpdatedAt: t0, Payload: client.Parse(raw), Raw: raw}
}

// BenchmarkDetail1MB renders the detail of a 1 MB payload (README: speed).
func BenchmarkDetail1MB(b *testing.B) {
	it := hugeInterrupt(1 << 20)
	m, _ := New(Options{Backend: fake.New(), Now: func() time.Time { return t0 }})
	b.ReportAllocs()
	for b.Loop() {
		_ = m.detailText(&it, 100)
	}
}

// BenchmarkDetailSmall renders the detail of an ordinary interrupt.
func BenchmarkDetailSmall(b *testing.B) {
	raw := json.RawMessage(`{"actionRequests":[{"name":"send_email","args":{"to":"a@example.com","subject":"Hi","body":"Hello"},"description":"Send it"}],"reviewConfigs":[{"actionName":"send_email","allowedDecisions":["approve","edit","reject"]}]}`)
	it := client.Interrupt{ID: "x", Payload: client.Parse(raw), Raw: raw}
	m, _ := New(Options{Backend: fake.New(), Now: func() time.Time { return t0 }})
	b.ReportAllocs()
	for b.Loop() {
		_ = m.detailText(&it, 100)
	}
}

// Bad input gets a visible rendering, never a crash: a 1 MB payload
// renders, inertly; a JSON nested past the limit is an item that says so.
func TestHugeAndDeepPayloadsRender(t *testing.T) {
	big := hugeInterrupt(1 << 20)
	deepRaw := json.RawMessage(strings.Repeat("[", 20000) + strings.Repeat("]", 20000))
	deep := client.Interrupt{ID: "deep", Payload: client.Parse(deepRaw)}
	deep.WithValue(deepRaw)
	h := newHarness(t, 100, 30, big, deep)
	start := time.Now()
	out := h.m.detailText(&big, 100)
	if strings.Contains(out, "\x1b[31m") || !strings.Contains(out, `\u001b[31m`) {
		t.Fatal("an escape inside a huge payload reached the screen")
	}
	if out := ansi.Strip(h.m.detailText(&deep, 100)); deep.Schema != client.SchemaUnreadable ||
		!strings.Contains(out, "Not shown: payload nested 20,000 levels deep") || !strings.Contains(out, "prints the bytes the server sent") {
		t.Fatalf("a too-deep payload does not say what is wrong with it:\n%s", out)
	}
	t.Logf("1 MB detail in %s", time.Since(start))
}

// BenchmarkPoll1MB is a poll that brings back the same 1 MB interrupt while
// its detail is open: the detail is not rendered again.
func BenchmarkPoll1MB(b *testing.B) {
	it := hugeInterrupt(1 << 20)
	m, _ := New(Options{Backend: fake.New(), Now: func() time.Time { return t0 }})
	next, _ := m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	m = next.(*Model)
	m.Update(pendingMsg{items: []client.Interrupt{it}})
	b.ReportAllocs()
	for b.Loop() {
		m.Update(pendingMsg{items: []client.Interrupt{it}})
	}
}

// manyItems are n ordinary tool-call interrupts of n threads.
func manyItems(n int) []client.Interrupt {
	out := make([]client.Interrupt, n)
	for i := range out {
		id := fmt.Sprintf("%08x%024x", i, i)
		out[i] = toolCall(id, "thread-"+id[:8], "send_email", fmt.Sprintf(`{"to":"user%d@example.com","subject":"Order %d","body":"Hello"}`, i, i))
		out[i].UpdatedAt = t0.Add(-time.Duration(i) * time.Second)
	}
	return out
}

func benchModel(b *testing.B, w, h int, its ...client.Interrupt) *Model {
	m, _ := New(Options{Backend: fake.New(), Now: func() time.Time { return t0 }})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(pendingMsg{items: its})
	return m
}

// BenchmarkFilterKeystroke10k is one keystroke of `/` filtering over
// 10,000 pending interrupts, with the frame it draws.
func BenchmarkFilterKeystroke10k(b *testing.B) {
	m := benchModel(b, 140, 40, manyItems(10000)...)
	m.Update(keyMsg("/"))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := "9"
		if i%2 == 1 {
			k = "backspace"
		}
		if k == "backspace" {
			m.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
		} else {
			m.Update(keyMsg(k))
		}
		_ = m.View()
	}
}

// BenchmarkConfirmEdit is ctrl+s on an edited 4-line JSON: the confirm
// screen with its diff, drawn.
func BenchmarkConfirmEdit(b *testing.B) {
	it := toolCall(idEmail, "t", "send_email", `{"to":"a@example.com","subject":"s","body":"b","cc":[]}`)
	b.ReportAllocs()
	for b.Loop() {
		m := benchModel(b, 140, 40, it)
		m.Update(keyMsg("e"))
		m.Update(externalEditMsg{text: `{"to":"jane@example.com","subject":"s","body":"b2","cc":[]}`})
		m.Update(keyMsg("ctrl+s"))
		_ = m.View()
	}
}

// BenchmarkOpenDetail1MB opens the detail of a 1 MB payload: the key and
// the frame that shows it.
func BenchmarkOpenDetail1MB(b *testing.B) {
	big := hugeInterrupt(1 << 20)
	small := toolCall(idEmail, "t", "send_email", `{"to":"a@example.com"}`)
	small.UpdatedAt = big.UpdatedAt.Add(time.Second)
	m := benchModel(b, 140, 40, small, big)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m.detail.sig = detailKey{} // as if never shown
		if i%2 == 0 {
			m.Update(keyMsg("j"))
		} else {
			m.Update(keyMsg("k"))
		}
		_ = m.View()
	}
}

// BenchmarkInboxFrame1MBArg draws the inbox with a 1 MB array argument
// visible in a row.
func BenchmarkInboxFrame1MBArg(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"rows":[`)
	for i := 0; sb.Len() < 1<<20; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":%d,"v":"x"}`, i)
	}
	sb.WriteString(`]}`)
	it := toolCall(idEmail, "t", "bulk_update", sb.String())
	m := benchModel(b, 140, 40, append(manyItems(30), it)...)
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}

// A 10 MB prompt is folded on screen, with a note saying how much more
// there is and how to see it, and its row keeps one line's worth.
func TestHugeTextIsFoldedWithANote(t *testing.T) {
	raw := json.RawMessage(`"` + strings.Repeat("lorem ipsum ", 10<<20/12) + `"`)
	it := client.Interrupt{ID: "b16a0000000000000000000000000002", Payload: client.Parse(raw), Raw: raw}
	h := newHarness(t, 140, 40, it)
	out := ansi.Strip(h.m.detailText(&it, 100))
	if len(out) > 200<<10 || !strings.Contains(out, "more not shown (hitl show b16a0000 prints all of it)") {
		t.Fatalf("the detail of a 10 MB prompt: %d bytes, ends %q", len(out), out[max(0, len(out)-300):])
	}
	if g := h.m.items.gist(&it); len(g) > 2<<10 {
		t.Fatalf("the row keeps %d bytes", len(g))
	}
}
