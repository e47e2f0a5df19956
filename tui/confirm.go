package tui

import (
	"encoding/json"
	"errors"
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

func newConfirmScreen(m *Model, id string) *confirmScreen {
	vp := newPage()
	c := &confirmScreen{id: id, page: vp}
	c.refresh(m)
	return c
}

// refresh prepares again what would be sent (the items, the drafts or
// what became of the interrupt changed).
func (c *confirmScreen) refresh(m *Model) {
	it, sub, err := m.confirmed(c.id)
	c.prep = prepared{it: it, sub: sub, err: err}
	c.prepN++
}

func (*confirmScreen) name() string { return nameConfirm }

func (c *confirmScreen) resize(m *Model) {
	c.page.SetWidth(m.lay.page().w)
	c.page.SetHeight(m.lay.page().h)
	c.shown.reset()
}

func (c *confirmScreen) key(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Back):
		if m.items.get(c.id) == nil {
			m.popTo(nameInbox)
			m.setStatus(m.goneText(c.id)+" Nothing was sent.", false)
			return nil
		}
		m.pop()
	case key.Matches(msg, k.ShowJSON):
		c.showJSON = !c.showJSON
		c.shown.reset()
		if c.showJSON {
			// The JSON from its heading, as much of it as fits (the line
			// above, blank, gives way to the marker of what is above).
			c.render(m)
			c.page.SetYOffset(c.jsonAt - 1)
		}
	case key.Matches(msg, k.DiffMode):
		if !c.hasDiff(m) {
			m.setStatus("Nothing was edited: there is no diff to lay out.", false)
			return nil
		}
		m.sideBySide = !m.sideBySide
		if m.sideBySide && c.page.Width()-4 < sideBySideFrom {
			m.setStatus(fmt.Sprintf("Side by side needs a wider window (%d columns of diff): unified it stays.", sideBySideFrom), false)
		}
	case key.Matches(msg, k.Down, k.Up, k.ScrollDown, k.ScrollUp, k.PageDown, k.PageUp, k.Top, k.Bottom):
		scroll(&c.page, k, msg)
	case key.Matches(msg, k.End):
		// On rejects: stop there too (the model is not asked again).
		it := m.items.get(c.id)
		if it == nil || !c.rejects(m) {
			m.setStatus("x (stop) goes with a reject of every call: r, then x here.", false)
			return nil
		}
		if e, ok := m.opts.Backend.(client.Ender); !ok || !e.EndsThreads() {
			m.setStatus("Stop: this backend cannot end a thread's work (the LangGraph backend can).", false)
			return nil
		}
		for _, dec := range m.drafts.of(it).decisions {
			dec.Stop = !dec.Stop
		}
		c.refresh(m)
	case key.Matches(msg, k.Confirm):
		if m.sending || m.checking {
			return nil
		}
		if m.inGrace() {
			m.setStatus("Key ignored: the list just changed. Look, then press it again.", false)
			return nil
		}
		// Prepared again: a submission carries a decision id of its own.
		_, sub, err := m.confirmed(c.id)
		if err != nil {
			c.err = err.Error()
			c.refresh(m)
			return nil
		}
		m.sending = true
		m.setStatus("Sending…", true)
		ctx, cancel := ctxFor(2 * time.Minute)
		m.stopSend = cancel
		return tea.Batch(m.send(ctx, cancel, sub), m.spin.Tick)
	}
	return nil
}

// confirmed returns the interrupt id and the submission that answers it,
// with every other interrupt of its thread whose draft is complete, or why
// it cannot be sent.
func (m *Model) confirmed(id string) (*client.Interrupt, *client.Submission, error) {
	it := m.items.get(id)
	if it == nil {
		return nil, nil, errors.New(m.goneText(id))
	}
	ds, err := m.drafts.of(it).complete()
	if err != nil {
		return it, nil, err
	}
	drafts := []decide.Draft{{Interrupt: *it, Decisions: ds}}
	for i := range m.items.all {
		other := &m.items.all[i]
		if other.ID == it.ID || other.ThreadID != it.ThreadID || m.drafts[other.ID] == nil {
			continue
		}
		if ods, err := m.drafts[other.ID].complete(); err == nil {
			drafts = append(drafts, decide.Draft{Interrupt: *other, Decisions: ods})
		}
	}
	subs, err := m.pipe.Prepare(drafts)
	if err != nil {
		// A sibling's draft may be what does not encode: send this one alone.
		if subs, err = m.pipe.Prepare(drafts[:1]); err != nil {
			return it, nil, err
		}
	}
	for _, s := range subs {
		for _, x := range s.Items {
			if x.Interrupt.ID == it.ID {
				return it, s, nil
			}
		}
	}
	return it, nil, errors.New("nothing to send")
}

func (c *confirmScreen) view(m *Model, r rect) string {
	c.render(m)
	return pageView(m.st, m.keys, &c.page, r)
}

// render fills the page when what it shows changed.
func (c *confirmScreen) render(m *Model) {
	race := ""
	if it := c.prep.it; it != nil {
		race = m.raceWarning(it)
	}
	k := confirmKey{showJSON: c.showJSON, sideBySide: m.sideBySide, err: c.err, width: c.page.Width(),
		detail: m.detail.sig, race: race, gone: m.gone[c.id], prepN: c.prepN}
	if !c.shown.stale(k) {
		return
	}
	c.page.SetContent(c.text(m))
}

func (c *confirmScreen) text(m *Model) string {
	w := c.page.Width()
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	it, sub, err := c.prep.it, c.prep.sub, c.prep.err
	if it == nil {
		return "\n" + indentBlock(m.st.err.Render(ansi.Wrap(safe(err.Error()), max(w-2, 10), " "))+"\n"+name(m.keys.Back)+" goes back; nothing was sent.", "  ")
	}
	items := []client.Item{{Interrupt: *it}}
	if sub != nil {
		items = sub.Items
	}
	line(m.st.title.Render(ansi.Wrap("Send this? "+safe(confirmTitle(it)), w, " ")))
	line(m.st.faint.Render(ansi.Wrap(fmt.Sprintf("interrupt %s · thread %s · graph %s", safe(present.ShortID(it.ID)), safe(it.ThreadID), safe(it.GraphID)), w, " ")))
	if len(items) > 1 {
		line(m.st.bold.Render(ansi.Wrap(fmt.Sprintf("One resume answers %d interrupts of this thread (every one with a complete draft):", len(items)), w, " ")))
	}
	for n, x := range items {
		target := &x.Interrupt
		if len(items) > 1 {
			line("")
			line(m.st.bold.Render(ansi.Wrap(fmt.Sprintf("%d. %s  %s", n+1, safe(present.ShortID(target.ID)), safe(confirmTitle(target))), w, " ")))
		}
		if warn := m.items.warning(target); warn != 0 {
			line(m.st.warn.Render("⚠ the payload contains " + warn.String()))
		}
		line("")
		d := m.drafts.of(target)
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
				line(m.st.ok.Render(ansi.Wrap(m.st.bold.Render(label)+": continue (the run goes on from the breakpoint)", w, " ")))
				continue
			}
			line(m.look().decisionText(m.st.bold.Render(label)+": ", dec, w))
			if dec.Type == client.Edit && len(target.Actions) > 0 {
				line(indentBlock(m.look().diffView(target.Actions[i].Args, dec.Args, w-4), "    "))
			}
			if len(dec.Value) > 0 {
				// A typed answer (a form, or JSON): what it says, before
				// the exact resume value that v shows.
				line(indentBlock(m.look().highlightJSON(dec.Value, w-4, name(m.keys.ShowJSON)), "    "))
			}
			for j, a := range dec.Answers {
				line(indentBlock(ansi.Wrap(fmt.Sprintf("answer %d: %s", j+1, safeBlock(a)), w-4, " "), "    "))
			}
		}
		if target.Busy {
			line(m.st.warn.Render(ansi.Wrap("Note: a run is in progress on this thread; the server refuses a decision until it ends.", w, " ")))
		}
		if race := m.raceWarning(target); race != "" {
			line(m.st.warn.Render(ansi.Wrap("⚠ "+safe(race), w, " ")))
		}
		if sub != nil {
			for _, note := range client.Consequences(&target.Payload, x.Decisions) {
				line("")
				line(m.st.warn.Render(ansi.Wrap("Note: "+safe(note), w, " ")))
			}
		}
	}
	if err != nil {
		line("")
		line(m.st.err.Render(ansi.Wrap("✗ Cannot send: "+safe(err.Error()), w, " ")))
		line(name(m.keys.Back) + " goes back to change the decision.")
		return b.String()
	}
	if c.err != "" {
		line("")
		line(m.st.err.Render(ansi.Wrap("✗ "+safe(c.err), w, " ")))
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
			line(m.st.bold.Render(ansi.Wrap(fmt.Sprintf("Resume value, exactly as sent: one value for the %d interrupts, each answer under its interrupt's id:", len(sub.Items)), w, " ")))
			if v, err := json.Marshal(all); err == nil {
				line(m.look().highlightJSON(v, w, ""))
			} else {
				line(m.st.err.Render(ansi.Wrap("cannot be written as JSON: "+safe(err.Error()), w, " ")))
			}
		} else {
			x := sub.Items[0]
			line(m.st.bold.Render("Resume value, exactly as sent:"))
			switch {
			case x.Resume.End != nil:
				line(ansi.Wrap("(none: nothing is resumed; the thread's work is ended by a state update as the interrupted node, then a run with no input)", w, " "))
			case x.Resume.Continue:
				line("(none: the run continues from the breakpoint with no input)")
			default:
				line(m.look().highlightJSON(x.Resume.Value, w, ""))
			}
		}
	} else {
		line(m.st.faint.Render(name(m.keys.ShowJSON) + " shows the exact resume JSON"))
	}
	line("")
	line(m.st.bold.Render(fmt.Sprintf("%s sends it once · %s goes back (nothing is lost)", name(m.keys.Confirm), name(m.keys.Back))))
	return b.String()
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
func (c *confirmScreen) rejects(m *Model) bool {
	it := c.prep.it
	if it == nil {
		return false
	}
	for _, dec := range m.drafts.of(it).decisions {
		if dec == nil || dec.Type != client.Reject {
			return false
		}
	}
	return true
}

func (c *confirmScreen) hints(m *Model) []hint {
	k := m.keys
	if m.items.get(c.id) == nil {
		return on(k.Back) // nothing left to send
	}
	if _, ok := m.opts.Backend.(client.Ender); ok && c.rejects(m) {
		return on(k.Confirm, k.End, k.ShowJSON, k.Back)
	}
	if !c.hasDiff(m) {
		return on(k.Confirm, k.ShowJSON, k.Back)
	}
	return on(k.Confirm, k.ShowJSON, k.DiffMode, k.Back)
}

// hasDiff reports whether the screen shows a diff (an edit of a call's
// arguments), which t lays out unified or side by side.
func (c *confirmScreen) hasDiff(m *Model) bool {
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
