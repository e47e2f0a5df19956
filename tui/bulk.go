package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/review"
)

// Approve in bulk: space marks rows of the inbox; A with rows marked (or,
// with none marked, on a filtered list: every row shown) opens one confirm
// screen that lists each interrupt it approves, with what y does to it
// (sends it, records the reviewer's approval under a team's rule, confirms
// another approver's), and each it leaves out (approve not allowed, a
// standing approval that is not this plain approve: review.Approvals),
// then sends one resume per thread (branches together) and shows each
// outcome.

// bulkSentMsg is the outcome of every submission of a bulk approve; n: the
// interrupts they answer (a submission refused before sending, its thread
// busy, says of none).
type bulkSentMsg struct {
	results []*decide.Result
	n       int
}

type bulkScreen struct {
	drafts  []decide.Draft
	effects []review.Effect // what y does to each draft
	refused []string        // why each one left out is
	subs    []*client.Submission
	err     string
	results []*decide.Result // after sending
	page    viewport.Model
	shown   cache[bulkKey]
	// outcomesAt: the line the outcomes start at (text); seen: the page
	// was scrolled to them once, when they came.
	outcomesAt   int
	outcomesSeen bool
}

// bulkKey is everything the page's text depends on.
type bulkKey struct {
	width, results int
	sending        bool
}

func (s *bulkScreen) resize(v *env) {
	s.page.SetWidth(v.lay.page().w)
	s.page.SetHeight(v.lay.page().h)
	s.shown.reset()
}

// toggleMark marks or unmarks the selected row, then moves down.
func (m *Model) toggleMark() {
	it := m.items.current()
	if it == nil || m.heldUntilChosen() {
		return
	}
	if m.marked[it.ID] {
		delete(m.marked, it.ID)
	} else {
		m.marked[it.ID] = true
	}
	m.items.move(1)
	m.setStatus(fmt.Sprintf("%d marked · %s approves them all (a confirm screen lists each first) · space unmarks", len(m.marked), name(m.keys.ApproveAll)), true)
}

// bulkTargets are the interrupts A acts on in bulk: the marked ones, or,
// with none marked and a filter set, every row shown; nil: the selected
// interrupt alone (A approves its actions, as ever).
func bulkTargets(x *items, marked map[string]bool) []client.Interrupt {
	var out []client.Interrupt
	if len(marked) > 0 {
		for _, it := range x.shown {
			if marked[it.ID] {
				out = append(out, it)
			}
		}
		return out
	}
	if x.filter != "" && len(x.shown) > 1 {
		return append(out, x.shown...)
	}
	return nil
}

// bulkWhat names the rows A acts on: "marked", or "shown" (a filter).
func bulkWhat(v *env) string {
	if len(v.marked) == 0 {
		return "shown"
	}
	return "marked"
}

// bulkEffect is what y does to the draft: the rule the hub tells its
// sessions (approvalsNeeded), else what the approval standing on it says,
// as the confirm screen of one decision words it (confirm.go: sending).
func bulkEffect(v *env, d decide.Draft) review.Effect {
	needed := 0
	if v.approvalsNeeded != nil {
		needed = v.approvalsNeeded(d.Interrupt, d.Decisions)
	}
	return review.Does(d.Interrupt, v.reviewer, needed, v.ruled)
}

// openBulk builds the approvals and opens the bulk confirm screen.
func (m *Model) openBulk(its []client.Interrupt) {
	s := &bulkScreen{}
	vp := newPage()
	s.page = vp
	var left []review.Left
	v := m.env()
	s.drafts, left = review.Approvals(its, v.reviewer)
	for _, d := range s.drafts {
		s.effects = append(s.effects, bulkEffect(v, d))
	}
	for _, l := range left {
		it := l.Interrupt
		why := l.Why()
		if l.Standing != nil {
			why += fmt.Sprintf("; open it (%s) to confirm that very decision, with its diff", name(m.keys.Open))
		}
		s.refused = append(s.refused, fmt.Sprintf("%s  %s: %s", present.ShortID(it.ID), present.Summary(it), why))
	}
	if len(s.drafts) > 0 {
		subs, err := m.pipe.Prepare(s.drafts)
		if err != nil {
			s.err = err.Error()
		}
		s.subs = subs
		// A thread's branches go in one resume: one only recorded holds
		// the others of it.
		var ids []string
		for _, d := range s.drafts {
			ids = append(ids, d.Interrupt.ID)
		}
		var resumes [][]string
		for _, sub := range subs {
			resumes = append(resumes, sub.IDs())
		}
		s.effects = review.InOneResume(s.effects, ids, resumes)
	}
	m.push(s)
	s.resize(m.env())
}

func (s *bulkScreen) key(v *env, msg tea.KeyPressMsg) []act {
	k := v.keys
	switch {
	case key.Matches(msg, k.Back):
		if s.results != nil {
			return []act{clearMarks{}, popScreen{}}
		}
		return []act{popScreen{}}
	case key.Matches(msg, k.Quit):
		return []act{askQuit{}} // nothing is lost; during a send it asks
	case key.Matches(msg, k.Help):
		return helpRoom.open(v)
	case key.Matches(msg, k.Confirm) && s.results == nil:
		if v.busy || len(s.subs) == 0 || s.err != "" {
			return nil
		}
		if v.grace {
			return []act{status{"Key ignored: the list just changed. Look, then press it again.", false}}
		}
		return []act{sendBulk{subs: s.subs, n: len(s.drafts)}}
	default:
		scroll(&s.page, k, msg)
	}
	return nil
}

// showOutcomes shows what became of each submission.
func (s *bulkScreen) showOutcomes(results []*decide.Result) {
	s.results = results
	s.shown.reset()
}

// clearMarks forgets the rows marked for a bulk approve.
type clearMarks struct{}

func (clearMarks) apply(m *Model) tea.Cmd { clear(m.marked); return nil }

// sendBulk sends one submission per thread, one after the other.
type sendBulk struct {
	subs []*client.Submission
	n    int // the interrupts they answer
}

func (a sendBulk) apply(m *Model) tea.Cmd {
	if m.sending || m.checking {
		return nil
	}
	m.sending = true
	m.setStatus(fmt.Sprintf("Sending %d approvals…", a.n), true)
	p, subs, n := m.pipe, a.subs, a.n
	return tea.Batch(func() tea.Msg {
		var out []*decide.Result
		for _, sub := range subs {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			out = append(out, p.Send(ctx, sub))
			cancel()
		}
		return bulkSentMsg{results: out, n: n}
	}, m.spin.Tick)
}

// onBulkSent shows each outcome on the bulk screen; what was taken leaves
// the list.
func (m *Model) onBulkSent(msg bulkSentMsg) tea.Cmd {
	m.sending = false
	sent, recorded := 0, 0
	for _, r := range msg.results {
		for _, ir := range r.Items {
			if ir.Kind == decide.Sent || ir.Kind == decide.HandledElsewhere {
				m.items.handled[ir.ID] = true
				delete(m.drafts, ir.ID)
				delete(m.marked, ir.ID)
				if ir.Kind == decide.Sent {
					sent++
				}
			}
		}
		if r.Kind == decide.ApprovalRecorded && r.Submission != nil {
			// Recorded as the reviewer's approval, nothing sent: it
			// stays in the list, with its tally; the mark is spent.
			for _, id := range r.Submission.IDs() {
				delete(m.drafts, id)
				delete(m.marked, id)
				recorded++
			}
		}
	}
	m.items.drop()
	if s, ok := m.top().(interface{ showOutcomes([]*decide.Result) }); ok {
		s.showOutcomes(msg.results)
	}
	n := 0
	for _, r := range msg.results {
		n += len(r.Items)
	}
	n = max(n, msg.n)
	st := fmt.Sprintf("Approved %d of %d (each outcome above; H shows them later).", sent, n)
	if recorded > 0 {
		// Recorded is not approved: nothing of those was sent.
		st = fmt.Sprintf("Sent %d of %d; your approval recorded for %d, nothing sent for %s until another approver confirms (each outcome above; H shows them later).",
			sent, n, recorded, plural(recorded, "it", "those"))
	}
	m.setStatus(st, sent+recorded == n)
	return pollAfter(0)
}

func (s *bulkScreen) view(v *env, r rect) string {
	if s.shown.stale(bulkKey{width: r.w, results: len(s.results), sending: v.busy}) {
		s.page.SetContent(s.text(v, r.w))
		if s.results != nil && !s.outcomesSeen {
			// What was sent and what was refused is what the reviewer
			// looks for now: in view without a key, the list they
			// confirmed above it (scroll up).
			s.outcomesSeen = true
			s.page.SetYOffset(max(s.outcomesAt-1, 0)) // the blank line above gives way to the marker of what is above
		}
	}
	return pageView(v.st, v.keys, &s.page, r)
}

func (s *bulkScreen) text(v *env, w int) string {
	var b strings.Builder
	line := func(t string) { b.WriteString(t + "\n") }
	wrap := func(t string) string { return ansi.Wrap(t, max(w, 20), " ") }
	threads := len(s.subs)
	line(v.st.title.Render(wrap(fmt.Sprintf("Approve %d %s in bulk? %d %s (one per thread; branches of a thread together)",
		len(s.drafts), plural(len(s.drafts), "interrupt", "interrupts"), threads, plural(threads, "resume", "resumes")))))
	line("")
	// Each row names what is sent for it with the words of its outcome
	// ("Sent continue for …"): a breakpoint's approve is a continue.
	words := map[string]string{}
	for _, sub := range s.subs {
		for _, item := range sub.Items {
			words[item.Interrupt.ID] = decide.ItemWords(item)
		}
	}
	for i, d := range s.drafts {
		it := d.Interrupt
		word := words[it.ID]
		if word == "" {
			word = "approve"
		}
		row := fmt.Sprintf("%s  thread %s  %s  %s: %s", present.ShortID(it.ID), present.ShortID(it.ThreadID), present.BadgeOf(it), word, present.Summary(it))
		line(indentBlock(ansi.Wrap(safe(row), max(w-4, 20), " "), "  "))
		// What y does to it: sent, or only recorded under a team's rule.
		does := name(v.keys.Confirm) + " " + s.effects[i].Words()
		line(v.st.bold.Render(indentBlock(ansi.Wrap(safe(does), max(w-6, 20), " "), "    ")))
		// What the row warns of, and every argument the summary leaves
		// out: what is sent is what is on screen.
		if warn := v.items.warning(&it); warn != 0 {
			line(v.st.warn.Render(indentBlock(ansi.Wrap("⚠ the payload contains "+warn.String()+": shown as visible escapes", max(w-6, 20), " "), "    ")))
		}
		see := "hitl show " + present.ShortID(it.ID) + " prints all of it"
		for i, a := range it.Actions {
			label := safe(a.Name) + " arguments:"
			if len(it.Actions) > 1 {
				label = fmt.Sprintf("action %d/%d %s", i+1, len(it.Actions), label)
			}
			line(indentBlock(ansi.Wrap(label, max(w-6, 20), " "), "    "))
			line(indentBlock(v.look.highlightJSON(a.Args, max(w-8, 20), see), "      "))
		}
	}
	if len(s.refused) > 0 {
		line("")
		line(v.st.warn.Render(fmt.Sprintf("Left out (%d):", len(s.refused))))
		for _, r := range s.refused {
			line(v.st.warn.Render(indentBlock(ansi.Wrap(safe(r), max(w-4, 20), " "), "  ")))
		}
	}
	if s.err != "" {
		line("")
		line(v.st.err.Render(wrap("✗ Cannot send: " + safe(s.err))))
	}
	line("")
	switch {
	case s.results != nil:
		s.outcomesAt = strings.Count(wrapLong(b.String(), w), "\n")
		line(v.st.bold.Render("Outcomes"))
		for _, r := range s.results {
			st := v.st.ok
			if r.Kind != decide.Sent {
				st = v.st.warn
			}
			line(st.Render(indentBlock(ansi.Wrap(r.Text(), max(w-4, 20), " "), "  ")))
		}
		line("")
		line(v.st.faint.Render(name(v.keys.Back) + " back to the list"))
	case len(s.drafts) == 0:
		line(name(v.keys.Back) + " goes back; nothing to send.")
	default:
		line(v.st.bold.Render(wrap(fmt.Sprintf("%s %s · %s goes back (nothing is sent)", name(v.keys.Confirm), safe(review.Summary(s.effects)), name(v.keys.Back)))))
	}
	return wrapLong(b.String(), w)
}

func (s *bulkScreen) hints(v *env) []hint {
	k := v.keys
	if s.results != nil || len(s.drafts) == 0 {
		return on(k.Back, k.Help, k.Quit)
	}
	return on(k.Confirm, k.Back, k.Help, k.Quit)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
