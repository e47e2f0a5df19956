package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

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

// Bad input gets a visible rendering, never a crash: a 1 MB payload and a
// JSON nested past the decoder's limit both render, inertly.
func TestHugeAndDeepPayloadsRender(t *testing.T) {
	big := hugeInterrupt(1 << 20)
	deepRaw := json.RawMessage(strings.Repeat("[", 20000) + strings.Repeat("]", 20000))
	deep := client.Interrupt{ID: "deep", Payload: client.Parse(deepRaw), Raw: deepRaw}
	h := newHarness(t, 100, 30, big, deep)
	start := time.Now()
	out := h.m.detailText(&big, 100)
	if strings.Contains(out, "\x1b[31m") || !strings.Contains(out, `\u001b[31m`) {
		t.Fatal("an escape inside a huge payload reached the screen")
	}
	if deep.Schema != client.SchemaRaw || !strings.Contains(h.m.detailText(&deep, 100), "[[[[") {
		t.Fatal("a too-deep payload is not shown raw")
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
