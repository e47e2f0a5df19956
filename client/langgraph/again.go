package langgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/hitl-sh/hitl/client"
)

// What answering a failed thread's interrupt again does depends on what
// the server shows (measured on each, docs/servers.md "Answering a failed
// run's interrupt again"):
//
//   - After a node raised once its interrupt() had returned, every server
//     that resumes a failed thread runs the task again with the first
//     answer: the new one is not used.
//   - After a response schema refused the answer (inside interrupt()), a
//     new answer is taken.
//
// The two are told apart by the schema: where the server shows response
// schemas (langgraphjs dev, langgraph-api 0.16.7), an interrupt that has
// none failed after its answer was taken (client.Interrupt.KeptAnswer).
// langgraph-api 0.11.1 (langhost) and aegra show none, so there the same
// failure may be either (MayKeepAnswer). aegra resumes no failed thread at
// all (CannotAnswerAgain).

// showsSchemasSince is the first langgraph-api version measured to put
// response_schema on the wire (0.11.1 does not; the versions between were
// not tried, and are taken as not showing it).
var showsSchemasSince = [3]int{0, 16, 7}

// showsAnswerSchemas reports whether the server puts an interrupt's
// response_schema on the wire, so that an interrupt without one has none.
func (b *Backend) showsAnswerSchemas(ctx context.Context) bool {
	if b.schemaSeen.Load() {
		return true
	}
	b.detect(ctx)
	b.mu.Lock()
	info := b.info
	b.mu.Unlock()
	switch {
	case info == nil:
		return false // no /info: nothing says it would show one
	case info.Context == "js" || info.Context == "demo":
		return true // langgraphjs dev; hitl's own demo server
	case info.Python():
		return !versionBefore(info.Version, showsSchemasSince)
	}
	return false // another server (aegra)
}

// versionBefore reports whether a dotted version v is before min (a
// version that does not read as numbers is taken as before).
func versionBefore(v string, min [3]int) bool {
	parts := strings.SplitN(v, ".", 3)
	for i := range min {
		if i >= len(parts) {
			return min[i] > 0
		}
		digits := parts[i]
		if j := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); j >= 0 {
			digits = digits[:j]
		}
		n, err := strconv.Atoi(digits)
		if err != nil {
			return true
		}
		if n != min[i] {
			return n < min[i]
		}
	}
	return false
}

// noteSchemas remembers that the server showed a response schema.
func (b *Backend) noteSchemas(its []client.Interrupt) {
	for _, it := range its {
		if len(it.ResponseSchema) > 0 {
			b.schemaSeen.Store(true)
			return
		}
	}
}

// refusesFailed reports whether the server refuses to resume a thread
// whose last run failed: aegra (its /info name), or a server that refused
// so once already.
func (b *Backend) refusesFailed(ctx context.Context) bool {
	if b.failedRefused.Load() {
		return true
	}
	b.detect(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.info != nil && b.info.Name == "Aegra"
}

// markAgain copies a failed thread's held interrupts with what answering
// each again does on this server.
func (b *Backend) markAgain(ctx context.Context, f failedFacts) []client.Interrupt {
	if len(f.held) == 0 {
		return nil
	}
	b.noteSchemas(f.held)
	shows, refuses := b.showsAnswerSchemas(ctx), b.refusesFailed(ctx)
	out := make([]client.Interrupt, len(f.held))
	for i, it := range f.held {
		// Its own task failed, and no answer schema (that the server
		// shows) could have refused the answer.
		own := f.ownFailed[i] && len(it.ResponseSchema) == 0
		it.KeptAnswer = own && shows && !refuses
		it.MayKeepAnswer = own && !shows && !refuses
		it.CannotAnswerAgain = refuses
		out[i] = it
	}
	return out
}

// failedThreadRefusal is what a resume refused with 400 "not in
// interrupted state" means (aegra): nil when the thread is not one whose
// last run failed (then the refusal is the busy one: answered, or another
// branch running); otherwise the error that says so, and the server is
// known to refuse failed threads from then on.
func (b *Backend) failedThreadRefusal(ctx context.Context, threadID string, body []byte) error {
	t, err := b.thread(ctx, threadID)
	if err != nil || t == nil || t.Status != "error" {
		return nil
	}
	b.failedRefused.Store(true)
	said := "Cannot resume"
	var e struct {
		Message string `json:"message"`
		Detail  string `json:"detail"`
	}
	if json.Unmarshal(body, &e) == nil && e.Message+e.Detail != "" {
		said = e.Message + e.Detail
	}
	if len(said) > 200 {
		said = said[:200] + "…"
	}
	return fmt.Errorf("the server refused to resume thread %s (HTTP 400: %q): its last run failed (status error), and this server resumes only a thread that waits on an interrupt, so it takes no answer for a failed run. "+
		"Nothing was sent, and no decision can answer this interrupt here: start the agent again from its application (a new run on the thread, or a new thread); `hitl conversation %s` shows where it stopped",
		threadID, said, threadID)
}
