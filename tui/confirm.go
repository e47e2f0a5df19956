package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/diff"
	"github.com/hitl-sh/hitl/present"
)

// confirmScreen shows, before anything is sent, the decision per action,
// the diff of every edit, what the server will do that may surprise, and on
// `v` the exact resume JSON. With the interrupt go the other interrupts of
// its thread whose draft is complete: one resume answers them all.
type confirmScreen struct {
	id       string
	showJSON bool
	err      string // why the last attempt to send did not start
	page     viewport.Model
	shown    cache[confirmKey]
	jsonAt   int // the line where the resume JSON starts, when shown
	// prep is what would be sent, prepared when the screen opens and again
	// when the items, the drafts or what became of the interrupt change:
	// never while drawing. prepN counts the preparations.
	prep  prepared
	prepN int
	// undo, when set, are the draft's decisions from before the key that
	// opened this screen set them all at once (L: approve for good), put
	// back by going back: that key's question leaves no draft behind,
	// and whatever was decided before it is as it was.
	undo []*client.Decision
}

// prepared is the interrupt on the screen, the submission that answers
// it, or why it cannot be sent.
type prepared struct {
	it  *client.Interrupt
	sub *client.Submission
	err error
}

// confirmKey is everything the page's text depends on.
type confirmKey struct {
	showJSON, sideBySide bool
	err                  string
	width                int
	detail               detailKey
	race                 string
	gone                 gone
	prepN                int
}

func newConfirmScreen(v *env, id string) *confirmScreen {
	c := &confirmScreen{id: id, page: newPage()}
	c.refresh(v)
	return c
}

// refresh prepares again what would be sent (the items, the drafts or
// what became of the interrupt changed).
func (c *confirmScreen) refresh(v *env) {
	c.prep = v.prepare(c.id)
	c.prepN++
}

func (*confirmScreen) decisionStep() {}

// holdsWork: what it holds for its interrupt is not given up unasked.
func (*confirmScreen) holdsWork() {}

func (c *confirmScreen) shows(*env) string { return c.id }

// onGone: the page says it, in full; an older status would mislead.
func (c *confirmScreen) onGone(*env, gone) []act { return []act{clearStatus{}} }

func (c *confirmScreen) resize(v *env) {
	c.page.SetWidth(v.lay.page().w)
	c.page.SetHeight(v.lay.page().h)
	c.shown.reset()
}

func (c *confirmScreen) key(v *env, msg tea.KeyPressMsg) []act {
	k := v.keys
	switch {
	case key.Matches(msg, k.Help):
		return helpRoom.open(v)
	case key.Matches(msg, k.Quit):
		return []act{askQuit{}} // the drafts are kept; during a send it asks
	case key.Matches(msg, k.Back):
		if v.items.get(c.id) == nil {
			return []act{goHome{}, status{v.goneText(c.id) + " Nothing was sent.", false}}
		}
		if c.undo != nil {
			return []act{restoreDecisions{id: c.id, decisions: c.undo}, popScreen{}}
		}
		return []act{popScreen{}}
	case key.Matches(msg, k.ShowJSON):
		c.showJSON = !c.showJSON
		c.shown.reset()
		if c.showJSON {
			// The JSON from its heading, as much of it as fits (the line
			// above, blank, gives way to the marker of what is above).
			c.render(v)
			c.page.SetYOffset(c.jsonAt - 1)
		}
	case key.Matches(msg, k.DiffMode):
		if !c.hasDiff() {
			return []act{status{"Nothing was edited: there is no diff to lay out.", false}}
		}
		if !v.look.sideBySide && c.page.Width()-4 < sideBySideFrom {
			return []act{toggleDiffLayout{}, status{fmt.Sprintf("Side by side needs a wider window (%d columns of diff): unified it stays.", sideBySideFrom), false}}
		}
		return []act{toggleDiffLayout{}}
	case key.Matches(msg, k.Down, k.Up, k.ScrollDown, k.ScrollUp, k.PageDown, k.PageUp, k.Top, k.Bottom):
		scroll(&c.page, k, msg)
	case key.Matches(msg, k.End):
		// On rejects: stop there too (the model is not asked again).
		if v.items.get(c.id) == nil || !c.rejects(v) {
			return []act{status{"x (stop) goes with a reject of every call: r, then x here.", false}}
		}
		if !v.endsThreads {
			return []act{status{"Stop: this backend cannot end a thread's work (the LangGraph backend can).", false}}
		}
		if it := v.items.get(c.id); it != nil && !c.stops(v) && !v.endsAt(*it) {
			// Decided per interrupt: a coding agent's request (its agent
			// waits for an answer), or a source that ends no thread.
			if it.Origin != nil {
				return []act{status{"Not stopped: a coding agent's request cannot be rejected and stopped (its agent waits for an answer); y sends the reject alone.", false}}
			}
			return []act{status{"Not stopped: this interrupt's source cannot end a thread's work; y sends the reject alone.", false}}
		}
		if it := v.items.get(c.id); it != nil && !c.stops(v) {
			if err := stopsAlone(v.items, v.drafts, it); err != nil {
				return []act{status{endsAloneText("Not stopped", err), false}}
			}
		}
		return []act{toggleStop{c.id}}
	case key.Matches(msg, k.Confirm):
		if v.busy {
			return nil
		}
		if v.items.get(c.id) == nil {
			return []act{status{v.goneText(c.id) + " Nothing was sent.", false}}
		}
		if v.grace {
			return []act{status{"Key ignored: the list just changed. Look, then press it again.", false}}
		}
		if v.viewOnly {
			// Made a viewer (a reload) since this screen opened.
			return []act{status{fmt.Sprintf("Not sent: %s is a viewer here now and decides nothing; an approver of the team decides.", safe(v.reviewer)), false}}
		}
		// Prepared again: a submission carries a decision id of its own.
		p := v.prepare(c.id)
		if p.err != nil {
			c.err = p.err.Error()
			c.refresh(v)
			return nil
		}
		return []act{send{p.sub}}
	}
	return nil
}

// stopsAlone is why the rejects of it's draft cannot stop the thread too
// (x on the confirm screen): a fan-out branch (decide.EndsAlone).
func stopsAlone(x *items, ds drafts, it *client.Interrupt) error {
	var stops []client.Decision
	for _, dec := range ds.peek(it).decisions {
		if dec != nil {
			s := *dec
			s.Stop = true
			stops = append(stops, s)
		}
	}
	return decide.EndsAlone([]decide.Draft{{Interrupt: *it, Decisions: stops}}, x.all)
}

// endsAloneText is the status that refuses to end a fan-out branch's
// thread: what was not done, why, and what to do instead, in full.
func endsAloneText(what string, err error) string {
	return what + ", nothing sent: " + err.Error() + ", or answer this branch without ending the thread."
}

// prepare is what would be sent to answer id, prepared now.
func (m *Model) prepare(id string) prepared {
	return prepareFor(&m.items, m.drafts, m.pipe, m.gone, id)
}

// confirmed returns the interrupt id and the submission that answers it,
// with every other interrupt of its thread whose draft is complete, or why
// it cannot be sent.
func (m *Model) confirmed(id string) (*client.Interrupt, *client.Submission, error) {
	p := m.prepare(id)
	return p.it, p.sub, p.err
}

// prepareFor is what answers id: its draft and every other complete draft
// of its thread, prepared by the pipeline (the drafts are read, never
// changed).
func prepareFor(x *items, ds drafts, pipe *decide.Pipeline, gs map[string]gone, id string) prepared {
	it := x.get(id)
	if it == nil {
		return prepared{err: errors.New(goneTextOf(gs, id))}
	}
	mine, err := ds.peek(it).complete()
	if err != nil {
		return prepared{it: it, err: err}
	}
	drafts := []decide.Draft{{Interrupt: *it, Decisions: mine}}
	if err := decide.EndsAlone(drafts, x.all); err != nil {
		// A draft kept from before the thread fanned out: said here, on
		// the screen that would send it, nothing sent.
		return prepared{it: it, err: err}
	}
	for i := range x.all {
		other := &x.all[i]
		if other.ID == it.ID || other.ThreadID != it.ThreadID || ds[other.ID] == nil {
			continue
		}
		if ods, err := ds[other.ID].complete(); err == nil {
			drafts = append(drafts, decide.Draft{Interrupt: *other, Decisions: ods})
		}
	}
	subs, err := pipe.Prepare(drafts)
	for err != nil {
		// A sibling's draft that does not encode stays a draft: the others
		// go without it. This one's own refusal is said.
		var de *decide.DraftError
		if !errors.As(err, &de) || de.Draft <= 0 || de.Draft >= len(drafts) {
			return prepared{it: it, err: err}
		}
		drafts = slices.Delete(drafts, de.Draft, de.Draft+1)
		subs, err = pipe.Prepare(drafts)
	}
	for _, s := range subs {
		for _, x := range s.Items {
			if x.Interrupt.ID == it.ID {
				return prepared{it: it, sub: s}
			}
		}
	}
	return prepared{it: it, err: errors.New("nothing to send")}
}

func (c *confirmScreen) view(v *env, r rect) string {
	c.render(v)
	return pageView(v.st, v.keys, &c.page, r)
}

// render fills the page when what it shows changed.
func (c *confirmScreen) render(v *env) {
	race := ""
	if it := c.prep.it; it != nil {
		race = v.race(it)
	}
	k := confirmKey{showJSON: c.showJSON, sideBySide: v.look.sideBySide, err: c.err, width: c.page.Width(),
		detail: v.detail, race: race, gone: v.gone[c.id], prepN: c.prepN}
	if c.shown.stale(k) {
		c.page.SetContent(c.text(v))
	}
}

func (c *confirmScreen) text(v *env) string {
	w := c.page.Width()
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	it, sub, err := c.prep.it, c.prep.sub, c.prep.err
	if it == nil {
		return "\n" + indentBlock(v.st.err.Render(ansi.Wrap(safe(err.Error()), max(w-2, 10), " "))+"\n"+name(v.keys.Back)+" goes back; nothing was sent.", "  ")
	}
	items := []client.Item{{Interrupt: *it}}
	if sub != nil {
		items = sub.Items
	}
	what, tally := c.sending(v)
	ask := "Send this? "
	switch {
	case what == records && tally.Already:
		ask = "You approved this already: "
	case what == records:
		ask = "Record your approval? "
	}
	line(v.st.title.Render(ansi.Wrap(ask+safe(confirmTitle(it)), w, " ")))
	line(v.st.faint.Render(ansi.Wrap(fmt.Sprintf("interrupt %s · thread %s · graph %s", safe(present.ShortID(it.ID)), safe(it.ThreadID), safe(it.GraphID)), w, " ")))
	if len(items) > 1 {
		line(v.st.bold.Render(ansi.Wrap(fmt.Sprintf("One resume answers %d interrupts of this thread (every one with a complete draft):", len(items)), w, " ")))
	}
	for n, x := range items {
		target := &x.Interrupt
		if len(items) > 1 {
			line("")
			line(v.st.bold.Render(ansi.Wrap(fmt.Sprintf("%d. %s  %s", n+1, safe(present.ShortID(target.ID)), safe(confirmTitle(target))), w, " ")))
		}
		if warn := v.items.warning(target); warn != 0 {
			line(v.st.warn.Render("⚠ the payload contains " + warn.String()))
		}
		line("")
		d := v.drafts.peek(target)
		for i, dec := range d.decisions {
			if dec == nil {
				continue
			}
			label := "decision"
			if len(target.Actions) > 0 {
				label = fmt.Sprintf("Action %d/%d %s", i+1, len(target.Actions), safe(target.Actions[i].Name))
			}
			if target.Schema == client.SchemaBreakpoint && dec.Type == client.Approve {
				// What it does, in the word the result uses.
				line(v.st.ok.Render(ansi.Wrap(v.st.bold.Render(label)+": continue (the run goes on from the breakpoint)", w, " ")))
				continue
			}
			shown := dec
			if len(dec.Value) > 0 {
				// A typed answer is shown once, as JSON, below.
				d := *dec
				d.Message = ""
				shown = &d
			}
			line(v.look.decisionText(v.st.bold.Render(label)+": ", shown, w))
			if dec.Always {
				line(indentBlock(ansi.Wrap("from now on, the agent does not ask for: "+safe(strings.Join(target.Always, ", ")), w-4, " "), "    "))
			}
			if dec.Type == client.Edit && len(target.Actions) > 0 {
				line(indentBlock(v.look.diffView(target.Actions[i].Args, dec.Args, w-4), "    "))
			}
			if dec.Type == client.Approve && len(target.Actions) > 0 {
				// What is approved: the call as the detail shows it,
				// folded after a few rows with a mark that says where
				// the rest is.
				line(v.look.approvedCall(*target, target.Actions[i], w))
			}
			if len(dec.Value) > 0 {
				// A typed answer (a form, or JSON): what it says, before
				// the exact resume value that v shows.
				line(indentBlock(v.look.highlightJSON(dec.Value, w-4, name(v.keys.ShowJSON)), "    "))
			}
			for j, a := range dec.Answers {
				line(indentBlock(ansi.Wrap(fmt.Sprintf("answer %d: %s", j+1, safeBlock(a)), w-4, " "), "    "))
			}
		}
		if target.Busy {
			line(v.st.warn.Render(ansi.Wrap("Note: a run is in progress on this thread; the server refuses a decision until it ends.", w, " ")))
		}
		if note := present.KeptAnswerNote(*target); note != "" {
			line(v.st.warn.Render(ansi.Wrap("Note: "+note+".", w, " ")))
		}
		if race := v.race(target); race != "" {
			line(v.st.warn.Render(ansi.Wrap("⚠ "+safe(race), w, " ")))
		}
		if sub != nil {
			for _, note := range client.Consequences(&target.Payload, x.Decisions) {
				line("")
				line(v.st.warn.Render(ansi.Wrap("Note: "+safe(note), w, " ")))
			}
		}
	}
	if err != nil {
		line("")
		line(v.st.err.Render(ansi.Wrap("✗ Cannot send: "+safe(err.Error()), w, " ")))
		line(name(v.keys.Back) + " goes back to change the decision.")
		return b.String()
	}
	if c.err != "" {
		line("")
		line(v.st.err.Render(ansi.Wrap("✗ "+safe(c.err), w, " ")))
	}
	line("")
	if c.showJSON {
		c.jsonAt = strings.Count(b.String(), "\n")
		if len(sub.Items) > 1 {
			// One resume answers them all: the one value sent, each
			// answer under its interrupt's id (as JSON writes a map:
			// the ids in order).
			all := make(map[string]json.RawMessage, len(sub.Items))
			for _, x := range sub.Items {
				all[x.Interrupt.ID] = x.Resume.Value
			}
			line(v.st.bold.Render(ansi.Wrap(fmt.Sprintf("Resume value, exactly as sent: one value for the %d interrupts, each answer under its interrupt's id:", len(sub.Items)), w, " ")))
			if b, err := json.Marshal(all); err == nil {
				line(v.look.exactJSON(b, w))
			} else {
				line(v.st.err.Render(ansi.Wrap("cannot be written as JSON: "+safe(err.Error()), w, " ")))
			}
		} else {
			x := sub.Items[0]
			line(v.st.bold.Render("Resume value, exactly as sent:"))
			switch {
			case x.Resume.End != nil:
				line(ansi.Wrap("(none: nothing is resumed; the thread's work is ended by a state update as the interrupted node, then a run with no input)", w, " "))
			case x.Resume.Continue:
				line("(none: the run continues from the breakpoint with no input)")
			default:
				line(v.look.exactJSON(x.Resume.Value, w))
				if msg, ok := messageOf(v.messenger, sub); ok {
					line("")
					line(v.st.bold.Render(ansi.Wrap("The message that carries it, exactly as sent (hitl-… and hitl_decision_id are this decision's id, made when it is sent):", w, " ")))
					line(v.look.exactJSON(msg, w))
				}
			}
		}
	} else {
		line(v.st.faint.Render(name(v.keys.ShowJSON) + " shows the exact resume JSON"))
	}
	if c.offersStop(v) && !c.stops(v) {
		// What x would do, before it is pressed (once pressed, the note
		// above says what the send does).
		line(v.st.faint.Render(ansi.Wrap(name(v.keys.End)+" also stops the agent: the reject ends the thread's work, the agent does not go on (it is not asked again)", w, " ")))
	}
	line("")
	does := "sends it once"
	switch {
	case what == records && tally.Already:
		does = fmt.Sprintf("sends nothing: you approved this decision already (%s); another approver confirms it", safe(tally.Next.Words()))
	case what == records:
		does = fmt.Sprintf("records your approval (%s), nothing sent: another approver confirms the same decision to send it", safe(tally.Next.Counted()))
	case what == mayRecord:
		does = "sends it, or records your approval if a team rule asks for another approver"
	}
	line(v.st.bold.Render(ansi.Wrap(fmt.Sprintf("%s %s · %s goes back (nothing is lost)", name(v.keys.Confirm), does, name(v.keys.Back)), w, " ")))
	return b.String()
}

// What y does with the decision on the confirm screen.
const (
	sends     = iota // it is sent
	records          // a team's rule records it as an approval: nothing is sent
	mayRecord        // a hub's rule may record it: the hub does not say
)

// sending is what y does with the interrupt's decision: an approve or
// edit under a team's rule that asks for more approvers than have
// approved the same decision is recorded, not sent (the tally after it);
// in a hub's session that does not say its rules, it may be.
func (c *confirmScreen) sending(v *env) (int, client.Tally) {
	it, sub := c.prep.it, c.prep.sub
	if it == nil || sub == nil {
		return sends, client.Tally{}
	}
	for _, x := range sub.Items {
		if x.Interrupt.ID != it.ID {
			continue
		}
		if !slices.ContainsFunc(x.Decisions, func(d client.Decision) bool { return d.Type == client.Approve || d.Type == client.Edit }) {
			return sends, client.Tally{}
		}
		needed := 0
		switch {
		case v.approvalsNeeded != nil:
			needed = v.approvalsNeeded(*it, x.Decisions)
		case it.Approval != nil:
			needed = it.Approval.Needed
		}
		if needed == 0 {
			if v.ruled {
				return mayRecord, client.Tally{}
			}
			return sends, client.Tally{}
		}
		if needed <= 1 {
			return sends, client.Tally{}
		}
		prev := it.Approval
		if prev != nil && sameDecisions(prev.Decisions, x.Decisions) {
			// The decision approved (a confirms it): the same value,
			// whatever bytes the listing carried it in.
			p := *prev
			p.Value = x.Resume.Value
			prev = &p
		}
		t := client.Count(prev, v.reviewer, x.Resume.Value, needed, v.now())
		if t.Complete {
			return sends, t
		}
		return records, t
	}
	return sends, client.Tally{}
}

// messageOf is the message the backend sends around the one answer of
// sub (an A2A message), with the decision's id, made when it is sent,
// shown as "…".
func messageOf(m client.Messenger, sub *client.Submission) (json.RawMessage, bool) {
	if m == nil || len(sub.Items) != 1 {
		return nil, false
	}
	shown := *sub
	shown.DecisionID = "…"
	return m.Message(&shown, 0)
}

// confirmTitle names an interrupt on the confirm screen: its title, or,
// for a payload of no known shape (whose title says only that), its gist.
func confirmTitle(it *client.Interrupt) string {
	if it.Schema == client.SchemaRaw {
		return present.Summary(*it)
	}
	return it.Title
}

// rejects reports whether every decision of the draft is a reject (x
// then stops the thread there too).
func (c *confirmScreen) rejects(v *env) bool {
	it := c.prep.it
	if it == nil {
		return false
	}
	for _, dec := range v.drafts.peek(it).decisions {
		if dec == nil || dec.Type != client.Reject {
			return false
		}
	}
	return true
}

func (c *confirmScreen) hints(v *env) []hint {
	k := v.keys
	if v.items.get(c.id) == nil {
		return on(k.Back, k.Help, k.Quit) // nothing left to send
	}
	// The toggles say what pressing them does now.
	json := k.ShowJSON
	if c.showJSON {
		json = withHelp(json, "hide JSON")
	}
	out := on(k.Confirm)
	if v.viewOnly {
		out = []hint{{b: k.Confirm, off: true}}
	} else if what, _ := c.sending(v); what == records {
		out = []hint{{b: withHelp(k.Confirm, "record approval")}}
	}
	if c.offersStop(v) {
		end := withHelp(k.End, "stop the agent too")
		if c.stops(v) {
			end = withHelp(k.End, "let the agent go on")
		}
		out = append(out, hint{b: end})
	}
	out = append(out, hint{b: json})
	if c.hasDiff() && c.page.Width()-4 >= sideBySideFrom {
		// Offered where the window has room for both sides, saying which
		// layout pressing it gives.
		mode := withHelp(k.DiffMode, "side by side")
		if v.look.sideBySide {
			mode = withHelp(k.DiffMode, "unified diff")
		}
		out = append(out, hint{b: mode})
	}
	return append(out, on(k.Back, k.Help, k.Quit)...)
}

// offersStop reports whether x is offered: a reject of every call, on an
// interrupt whose thread can be ended (or already marked to stop, so that
// x takes it back).
func (c *confirmScreen) offersStop(v *env) bool {
	it := c.prep.it
	return it != nil && v.canEnd && c.rejects(v) && (v.endsAt(*it) || c.stops(v))
}

// stops reports whether the draft's decisions stop the thread too (x).
func (c *confirmScreen) stops(v *env) bool {
	it := c.prep.it
	if it == nil {
		return false
	}
	for _, dec := range v.drafts.peek(it).decisions {
		if dec != nil && dec.Stop {
			return true
		}
	}
	return false
}

// hasDiff reports whether the screen shows a diff (an edit of a call's
// arguments), which t lays out unified or side by side.
func (c *confirmScreen) hasDiff() bool {
	sub, err := c.prep.sub, c.prep.err
	if err != nil || sub == nil {
		return false
	}
	for _, x := range sub.Items {
		if len(x.Interrupt.Actions) == 0 {
			continue
		}
		for _, d := range x.Decisions {
			if d.Type == client.Edit {
				return true
			}
		}
	}
	return false
}

// approvedCallRows is how many rows of a call's arguments the confirm
// screen shows before it folds them: the call and the keys that send it
// fit at 80x24 together.
const approvedCallRows = 8

// approvedCall is the call an approve sends on, indented under its
// action's line: the command (a shell tool) or the arguments, as the
// detail screen shows them, folded after approvedCallRows rows with a
// visible mark that says how many rows are left and where they are.
func (lo look) approvedCall(it client.Interrupt, a client.Action, w int) string {
	see := "hitl show " + present.ShortID(it.ID) + " prints all of it"
	var b strings.Builder
	var one bytes.Buffer
	switch {
	case lo.toolView(&b, it, a, w-4, see):
	case json.Compact(&one, a.Args) == nil && ansi.StringWidth(safe(one.String())) <= w-4:
		// Arguments that fit on one line take one.
		b.WriteString(safe(one.String()))
	default:
		b.WriteString(lo.highlightJSON(a.Args, w-4, see))
	}
	rows := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(rows) > approvedCallRows+1 {
		more := len(rows) - approvedCallRows
		mark := ansi.Wrap(fmt.Sprintf("… %d more rows of this call not shown here: esc goes back to the detail, which shows all of it", more), max(w-6, 10), " ")
		rows = append(rows[:approvedCallRows], indentBlock(lo.st.warn.Render(mark), "  "))
	}
	return indentBlock(strings.Join(rows, "\n"), "  ")
}

// sameDecisions reports whether a and b decide alike: types, messages and
// edited arguments.
func sameDecisions(a, b []client.Decision) bool {
	return slices.EqualFunc(a, b, func(x, y client.Decision) bool {
		return x.Type == y.Type && x.Message == y.Message && x.Stop == y.Stop && x.Always == y.Always &&
			(len(x.Args) == 0 && len(y.Args) == 0 || diff.Equal(x.Args, y.Args))
	})
}
