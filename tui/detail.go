package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/diff"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
)

// detailPane shows the selected interrupt in full: beside the inbox from
// 100 columns, on the detail screen below. It renders only when what it
// shows changed: polls and key presses come often, and a large payload
// takes tens of milliseconds to render.
type detailPane struct {
	vp      viewport.Model
	sig     detailKey // what the viewport shows now (see signature)
	pending detailKey // what is being rendered off the update path
	// showConv: the conversation is shown, per thread.
	showConv map[string]bool
	// seek: the interrupt whose conversation c just opened: each rendering
	// scrolls to it (at the foot of a long detail it would open out of
	// sight) until it has loaded.
	seek string
}

func newDetailPane() detailPane {
	vp := newPage() // the screens route scrolling keys themselves
	return detailPane{vp: vp, showConv: map[string]bool{}}
}

func (d *detailPane) resize(r rect) {
	d.vp.SetWidth(r.w)
	d.vp.SetHeight(r.h)
}

func (d *detailPane) top() { d.vp.GotoTop() }

// detailAsyncFrom is the payload size from which the detail is rendered off
// the update path: keys stay responsive while a large payload renders.
const detailAsyncFrom = 64 << 10

// detailRenderedMsg is a detail rendered off the update path.
type detailRenderedMsg struct {
	sig  detailKey
	text string
	// convAt: the line the conversation starts at (-1: not shown); loaded:
	// the conversation is there, not loading.
	convAt int
	loaded bool
}

// sync renders the selected interrupt when something it shows changed: at
// once for an ordinary payload, in a command for a large one (the pane
// says so meanwhile, or keeps the interrupt's previous rendering).
func (d *detailPane) sync(m *Model) tea.Cmd {
	it := m.items.current()
	if it == nil {
		d.vp.SetContent("")
		d.sig, d.pending = detailKey{}, detailKey{}
		return nil
	}
	sig := d.signature(m, it)
	if sig == d.sig || sig == d.pending {
		return nil
	}
	in, lo, w := m.detailInput(it), m.look(), d.vp.Width()
	if d.sig.id != it.ID && d.pending.id != it.ID {
		d.vp.GotoTop() // another interrupt: from its top
	}
	if size := len(it.Raw) + len(it.Description); size < detailAsyncFrom {
		d.sig, d.pending = sig, detailKey{}
		text, convAt := lo.detailAt(in, w)
		d.show(text, it.ID, convAt, in.conv)
		return nil
	}
	if d.sig.id != it.ID {
		d.sig = detailKey{}
		d.vp.SetContent(m.st.faint.Render(fmt.Sprintf("Rendering the detail of %s (%s of payload)…", safe(present.ShortID(it.ID)), present.Size(len(it.Raw)))))
	}
	d.pending = sig
	return func() tea.Msg {
		text, convAt := lo.detailAt(in, w)
		return detailRenderedMsg{sig: sig, text: text, convAt: convAt, loaded: in.conv != nil && !in.conv.loading}
	}
}

// show puts the detail of id in the pane; convAt is the line its
// conversation starts at (-1: not shown), conv the conversation.
func (d *detailPane) show(text, id string, convAt int, conv *conversation) {
	d.vp.SetContent(text)
	if d.seek != id || convAt < 0 {
		return
	}
	d.vp.SetYOffset(max(convAt-1, 0)) // the blank line above gives way to the marker of what is above
	if conv != nil && !conv.loading {
		d.seek = "" // loaded: from here the reviewer scrolls
	}
}

// rendered takes a detail rendered off the update path, if it is still the
// one wanted.
func (d *detailPane) rendered(msg detailRenderedMsg) {
	if msg.sig != d.pending {
		return
	}
	d.sig, d.pending = msg.sig, detailKey{}
	var conv *conversation
	if msg.loaded {
		conv = &conversation{}
	}
	d.show(msg.text, msg.sig.id, msg.convAt, conv)
}

// detailKey is everything detailText depends on (the zero key: nothing
// shown); keys are compared with ==.
type detailKey struct {
	id                string
	width             int
	showConv          bool
	sideBySide        bool
	theme             string
	editing, deadline string
	approval          string
	slot              int
	decisions         string // the draft's decisions, as JSON
	conv              convKey
}

// signature names everything detailText depends on.
func (d *detailPane) signature(m *Model, it *client.Interrupt) detailKey {
	k := detailKey{id: it.ID, width: d.vp.Width(), showConv: d.showConv[it.ThreadID], sideBySide: m.sideBySide,
		theme: m.theme, editing: m.editing(it), deadline: m.deadline(it), approval: m.approvalText(it), slot: -1}
	if dr := m.drafts[it.ID]; dr != nil {
		k.slot = dr.slot
		if b, err := json.Marshal(dr.decisions); err == nil {
			k.decisions = string(b)
		}
	}
	if d.showConv[it.ThreadID] {
		k.conv = convKeyOf(m.convs[it.ThreadID])
	}
	return k
}

// detailScreen is the detail on a screen of its own, below 100 columns.
type detailScreen struct{}

// besideWhenWide: from 100 columns the detail sits beside the list.
func (*detailScreen) besideWhenWide() {}

// followsSelection: it shows whatever is selected.
func (*detailScreen) followsSelection() {}

// shows: the selected interrupt.
func (*detailScreen) shows(v *env) string {
	if it := v.items.current(); it != nil {
		return it.ID
	}
	return ""
}

func (*detailScreen) key(v *env, msg tea.KeyPressMsg) []act {
	k := v.keys
	switch {
	case key.Matches(msg, k.Back):
		return []act{popScreen{}}
	case key.Matches(msg, k.Up, k.Down, k.PageDown, k.PageUp, k.Top, k.Bottom):
		return []act{scrollDetail{msg}}
	}
	if as, ok := browseKey(v, msg); ok {
		return as
	}
	return []act{decideKey{msg: msg}}
}

func (*detailScreen) view(v *env, r rect) string {
	k := v.keys
	return marked(v.st, v.pane, r, name(k.Up)+", "+name(k.PageUp), name(k.Down)+", "+name(k.PageDown))
}

func (*detailScreen) hints(v *env) []hint {
	var out []hint
	it := v.items.current()
	if it != nil {
		out = decisionHints(v, it)
	}
	out = append(out, moreHints(v, it)...)
	return append(out, on(v.keys.Back, v.keys.Help, v.keys.Quit)...)
}

// conversation is a thread's messages, loaded on demand.
type conversation struct {
	messages []client.Message
	err      error
	loading  bool
}

type conversations map[string]*conversation

// toggleConversation shows or hides the selected thread's conversation,
// loading it the first time.
func (m *Model) toggleConversation() tea.Cmd {
	it := m.items.current()
	if it == nil {
		return nil
	}
	if why := m.noConversation(it); why != "" {
		m.setStatus(why, false)
		return nil
	}
	show := !m.detail.showConv[it.ThreadID]
	if m.atInbox() && !m.lay.wide {
		// No detail on screen (a narrow window): c opens it, with the
		// conversation shown, rather than changing what cannot be seen.
		if m.heldUntilChosen() || m.held() {
			return nil
		}
		show = true
		m.items.newCount = 0
		m.push(&detailScreen{})
	}
	m.detail.showConv[it.ThreadID] = show
	m.detail.seek = ""
	if show {
		m.detail.seek = it.ID // brought into view, however long the detail
	}
	if c := m.convs[it.ThreadID]; show && (c == nil || c.err != nil) {
		m.convs[it.ThreadID] = &conversation{loading: true}
		return m.loadConversation(it.ThreadID)
	}
	return nil
}

// detailInput is a copy of everything the detail of one interrupt shows,
// so that it can be rendered away from the live model.
type detailInput struct {
	it             client.Interrupt
	draft          *draft // a copy (its decisions are replaced, never changed in place)
	warn           inert.Warning
	conv           *conversation // nil: not loaded
	showConv       bool
	conversational bool
	editing        string // who else is editing it ("" for nobody)
	deadline       string // when the agent stops waiting ("" for never)
	approval       string // where a team's two-person rule stands ("" for nothing)
}

func (m *Model) detailInput(it *client.Interrupt) detailInput {
	in := detailInput{it: *it, warn: m.items.warning(it), showConv: m.detail.showConv[it.ThreadID], conv: m.convs[it.ThreadID], editing: m.editing(it),
		deadline: m.deadline(it), approval: m.approvalText(it)}
	if d := m.drafts[it.ID]; d != nil {
		c := *d
		c.decisions = append([]*client.Decision(nil), d.decisions...)
		in.draft = &c
	}
	in.conversational = m.noConversation(it) == ""
	return in
}

// noConversation says why c shows no conversation for it ("": it does): a
// backend that keeps none, or a coding agent's request, whose conversation
// is in the agent's own transcript.
func (m *Model) noConversation(it *client.Interrupt) string {
	if it.Origin != nil {
		return "No conversation here: a coding agent's request has its conversation in the agent's own transcript."
	}
	if m.feat.Conversational == nil {
		return "No conversation here: this backend keeps none."
	}
	return ""
}

// detailText is the interrupt in full, at width w.
func (m *Model) detailText(it *client.Interrupt, w int) string {
	return m.look().detail(m.detailInput(it), w)
}

func (lo look) detail(in detailInput, w int) string {
	text, _ := lo.detailAt(in, w)
	return text
}

// detailAt is detail, and the line its conversation starts at (-1: not
// shown).
func (lo look) detailAt(in detailInput, w int) (string, int) {
	it, d := &in.it, in.draft
	w = max(w, 20)
	st := lo.st
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	wrap := func(s string) string { return ansi.Wrap(s, w, " ") }

	see := "hitl show " + present.ShortID(it.ID) + " prints all of it"
	line(st.title.Render(wrap(safeBlock(fold(it.Title, see)))))
	if in.deadline != "" {
		// When the agent stops waiting, and what it then does.
		line(st.warn.Render(wrap("⏳ " + in.deadline + " (" + stamp(it.ExpiresAt) + ")")))
	}
	if warn := in.warn; warn != 0 {
		line(st.warn.Render(wrap("⚠ This interrupt contains " + warn.String() + ": shown as visible escapes (\\u001b; <U+202E>, in JSON \\u202e). Read it closely.")))
	}
	// An id is never broken across lines: one to copy must be whole.
	head := fmt.Sprintf("[%s] %s", present.BadgeOf(*it), safe(present.ShortID(it.ID)))
	if thread := "thread " + safe(it.ThreadID); ansi.StringWidth(head+" · "+thread) <= w {
		line(st.faint.Render(head + " · " + thread))
	} else {
		line(st.faint.Render(head))
		line(st.faint.Render(wrap(thread)))
	}
	if o := present.OriginLine(*it); o != "" {
		line(st.faint.Render(wrap(safe(o))))
	}
	if in.editing != "" {
		line(st.warn.Render(wrap("✎ " + safe(in.editing) + ": a decision now may race theirs")))
	}
	if in.approval != "" {
		line(st.warn.Render(wrap(in.approval)))
	}
	if it.Description != "" {
		line("")
		line(renderMarkdown(safeBlock(fold(it.Description, see)), lo.theme, w))
	}
	if len(it.Questions) > 0 {
		line("")
		line(st.bold.Render("Questions"))
		for i, q := range it.Questions {
			line(wrap(fmt.Sprintf("%d. %s", i+1, safeBlock(fold(q, see)))))
		}
	}
	slot := 0
	if d != nil {
		slot = d.slot
	}
	for i, a := range it.Actions {
		line("")
		marker := "  "
		if slot == i && len(it.Actions) > 1 {
			marker = "▸ "
		}
		head := fmt.Sprintf("%sAction %d/%d  %s", marker, i+1, len(it.Actions), safe(a.Name))
		allowed := "allowed: " + typesText(a.Allowed)
		if ansi.StringWidth(head+"  "+allowed) <= w {
			line(st.bold.Render(head) + "  " + st.faint.Render(allowed))
		} else {
			// Too wide for one line: the allowed decisions on their own
			// line, whole (a cut list would read as fewer choices).
			line(st.bold.Render(wrap(head)))
			line(indentBlock(st.faint.Render(ansi.Wrap(allowed, max(w-4, 10), " ")), "    "))
		}
		if d != nil && d.decisions[i] != nil {
			line(indentBlock(lo.decisionText("decision: ", d.decisions[i], w-2), "  "))
		}
		if desc := present.ActionDescription(a); desc != "" && a.Description != it.Description {
			line(indentBlock(renderMarkdown(safeBlock(fold(desc, see)), lo.theme, w-2), "  "))
		}
		switch {
		case d != nil && d.decisions[i] != nil && d.decisions[i].Type == client.Edit:
			line(indentBlock(lo.diffView(a.Args, d.decisions[i].Args, w-2), "  "))
		case lo.toolView(&b, *it, a, w-2, see):
		case len(a.Example) > 0:
			line(st.faint.Render("  proposed, against its example:"))
			line(indentBlock(lo.diffView(a.Example, a.Args, w-2), "  "))
			lo.forGood(&b, *it, w-2)
		default:
			line(indentBlock(lo.highlightJSON(a.Args, w-2, see), "  "))
			// Not a coding agent's request (Gemini CLI's tool calls over
			// A2A): what L allows is said all the same, as hitl show does.
			lo.forGood(&b, *it, w-2)
		}
	}
	if len(it.Actions) == 0 {
		line("")
		line(st.faint.Render(wrap("allowed: " + typesText(it.Allowed))))
		if d != nil && d.decisions[0] != nil {
			line(lo.decisionText("decision: ", d.decisions[0], w))
		}
		if it.Schema == client.SchemaRaw || it.Schema == client.SchemaForm {
			line(st.bold.Render("Value"))
			line(lo.highlightJSON(it.Raw, w, see))
		}
	}
	if len(it.Context) > 0 {
		line("")
		line(st.bold.Render("Context"))
		line(lo.highlightJSON(it.Context, w, see))
	}
	if it.Compare != nil {
		c := *it.Compare
		c.Left, c.Right = fold(c.Left, see), fold(c.Right, see)
		line("")
		line(lo.compareView(&c, w))
	}
	line("")
	var where []string // what the interrupt leaves empty is left out
	if it.GraphID != "" {
		where = append(where, "graph "+safe(it.GraphID))
	}
	if it.AssistantID != "" {
		where = append(where, "assistant "+safe(it.AssistantID))
	}
	if len(where) > 0 {
		line(st.faint.Render(wrap(strings.Join(where, " · "))))
	}
	line(st.faint.Render(wrap(fmt.Sprintf("created %s · updated %s", stamp(it.CreatedAt), stamp(it.UpdatedAt)))))
	line(st.faint.Render(wrap("id " + safe(it.ID))))
	convAt := -1
	if in.conversational {
		if in.showConv {
			line("")
			convAt = strings.Count(wrapLong(b.String(), w), "\n")
			line(lo.conversationText(in.conv, w))
		} else {
			line(st.faint.Render(name(lo.keys.Conversation) + " shows the conversation"))
		}
	}
	return wrapLong(strings.TrimRight(b.String(), "\n"), w), convAt
}

// wrapLong wraps every line wider than w: the panes that show text cut
// what is wider than they are, without a mark, so nothing may reach them
// wider (the last guard; each part wraps its own lines better).
func wrapLong(s string, w int) string {
	if w <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Hardwrap(ansi.Wrap(l, w, " "), w, true)
		}
	}
	return strings.Join(lines, "\n")
}

// forGood writes, indented, what approving it for good allows (as hitl
// show says it: present.ForGood), if anything.
func (lo look) forGood(b *strings.Builder, it client.Interrupt, w int) {
	if words, allows, ok := present.ForGood(it, name(lo.keys.ApproveAlways)); ok {
		b.WriteString(indentBlock(ansi.Wrap(lo.st.faint.Render(words)+" "+safe(allows), max(w, 20)-2, " "), "  ") + "\n")
	}
}

// toolView writes a coding agent's tool call as its reader knows it (the
// command; the file and the diff of the change), indented, and reports
// whether it did.
func (lo look) toolView(b *strings.Builder, it client.Interrupt, a client.Action, w int, see string) bool {
	v, ok := present.ToolOf(it, a)
	if !ok {
		return false
	}
	st := lo.st
	w = max(w, 20)
	out := func(s string) { b.WriteString(indentBlock(s, "  ") + "\n") }
	if v.Command != "" || present.IsShell(a.Name) {
		out(st.bold.Render("$ ") + ansi.Wrap(safeBlock(fold(v.Command, see)), w-2, " "))
	}
	for _, c := range v.Commands {
		out(st.bold.Render("$ ") + ansi.Wrap(safeBlock(fold(c, see)), w-2, " "))
	}
	for _, p := range v.Patterns {
		out(st.bold.Render("· ") + ansi.Wrap(safe(fold(p, see)), w-2, " "))
	}
	lo.forGood(b, it, w)
	if v.Path != "" {
		out(st.bold.Render("file ") + ansi.Wrap(safe(v.Path), w-5, ""))
	}
	for _, c := range v.Changes {
		out(st.faint.Render(c.Label + ":"))
		for _, l := range diff.Lines(safeBlock(fold(c.Before, see)), safeBlock(fold(c.After, see))) {
			out(lo.diffRows(l, w))
		}
	}
	if len(v.Patch) > 0 {
		out(st.faint.Render("change:"))
		for _, l := range v.Patch {
			l.Text = safeBlock(fold(l.Text, see))
			out(lo.diffRows(l, w))
		}
	}
	if v.Rest != "" {
		out(st.faint.Render("other input:"))
		out(lo.highlightJSON(json.RawMessage(v.Rest), w, see))
	}
	return true
}

// decisionText is a decision after label, wrapped to w: a message of
// several lines keeps its lines, under the label.
func (lo look) decisionText(label string, d *client.Decision, w int) string {
	s := string(d.Type)
	if d.Stop {
		s += " and stop"
	}
	if d.Always {
		s += " for good (always)"
	}
	if len(d.Answers) > 0 {
		s += fmt.Sprintf(" (%d answers)", len(d.Answers))
	}
	if d.Message != "" {
		s += ": " + safeBlock(d.Message)
	}
	return lo.st.ok.Render(ansi.Wrap(label+s, max(w, 20), " "))
}

func (lo look) conversationText(c *conversation, w int) string {
	switch {
	case c == nil || c.loading:
		return "Loading the conversation…"
	case c.err != nil:
		return lo.st.err.Render(ansi.Wrap("Conversation: "+safe(c.err.Error()), max(w, 20), " "))
	case len(c.messages) == 0:
		return "The thread has no messages."
	}
	const last = 10
	msgs := c.messages
	var b strings.Builder
	b.WriteString(lo.st.bold.Render(fmt.Sprintf("Conversation (last %d of %d)", min(last, len(msgs)), len(msgs))) + "\n")
	if len(msgs) > last {
		msgs = msgs[len(msgs)-last:]
	}
	// The role on a line of its own: the text under it wraps at the
	// width it really has, at its spaces as the status does (wrapWords:
	// "A-1001" is not split at its hyphen), and no word is lost.
	for _, msg := range msgs {
		b.WriteString(lo.st.faint.Render(safe(msg.Role)+":") + "\n")
		if strings.TrimSpace(msg.Content) != "" {
			b.WriteString(indentBlock(wrapWords(safeBlock(msg.Content), max(w-2, 10)), "  ") + "\n")
		}
		for _, tc := range msg.ToolCalls {
			b.WriteString(indentBlock(wrapWords("→ "+safe(tc), max(w-2, 10)), "  ") + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func typesText(ts []client.DecisionType) string { return present.Types(ts) }

func stamp(t time.Time) string { return present.Stamp(t) }
