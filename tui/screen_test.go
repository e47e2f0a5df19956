package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/decide"
)

// Screens tested as components: an env built by hand, no root Model; what
// a screen asks for is read from the actions it returns.

// bareEnv is what a screen sees of an app listing its, at w x h; preps
// counts the preparations of what would be sent.
func bareEnv(t *testing.T, w, h int, its ...client.Interrupt) (v *env, preps *int) {
	t.Helper()
	x := newItems()
	x.apply(its, map[string]bool{})
	pipe := &decide.Pipeline{Backend: fake.New(its...), Reviewer: "tester"}
	v = &env{keys: defaultKeys(), st: newStyles(), lay: newLayout(w, h, 0, 0, 1), now: func() time.Time { return t0 },
		items: &x, drafts: drafts{}, gone: map[string]gone{}, race: func(*client.Interrupt) string { return "" }}
	v.look = look{st: v.st, keys: v.keys, theme: "dark"}
	n := new(int)
	v.prepare = func(id string) prepared {
		*n++
		return prepareFor(v.items, v.drafts, pipe, v.gone, id)
	}
	return v, n
}

// draw is the screen's body as plain text.
func draw(v *env, s screen) string {
	v.front = s
	return ansi.Strip(s.view(v, v.lay.body))
}

// press gives s one key, as the root would.
func press(v *env, s screen, k string) []act {
	v.front = s
	return s.key(v, keyMsg(k))
}

func typeInto(v *env, s screen, text string) {
	for _, r := range text {
		s.key(v, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// only returns the one act of type T in as, or fails.
func only[T act](t *testing.T, as []act) T {
	t.Helper()
	var found []T
	for _, a := range as {
		if x, ok := a.(T); ok {
			found = append(found, x)
		}
	}
	if len(found) != 1 {
		var zero T
		t.Fatalf("want one %T in %#v", zero, as)
	}
	return found[0]
}

func TestConfirmScreenAlone(t *testing.T) {
	it := fixture(t, "middleware-js-email", idEmail, time.Minute)
	v, prepared := bareEnv(t, 80, 24, it)
	d := v.drafts.of(&it)
	d.decisions[0] = &client.Decision{Type: client.Reject, Message: "not to customers"}

	c := newConfirmScreen(v, idEmail)
	c.resize(v)
	for range 5 {
		if got := draw(v, c); !strings.Contains(got, "Send this?") || !strings.Contains(got, "not to customers") {
			t.Fatalf("confirm page:\n%s", got)
		}
	}
	if *prepared != 1 {
		t.Fatalf("prepared %d times for one opening and five frames: drawing must not prepare", *prepared)
	}
	hints := c.hints(v)
	if *prepared != 1 || len(hints) == 0 {
		t.Fatalf("the key bar prepared (%d times) or is empty", *prepared)
	}

	if as := press(v, c, "esc"); len(as) != 1 || as[0] != (popScreen{}) {
		t.Fatalf("esc: %#v", as)
	}
	v.grace = true
	if st := only[status](t, press(v, c, "y")); !strings.Contains(st.text, "Key ignored") {
		t.Fatalf("y in the grace period: %q", st.text)
	}
	v.grace, v.busy = false, true
	if as := press(v, c, "y"); len(as) != 0 {
		t.Fatalf("y while a decision is being sent: %#v", as)
	}
	v.busy = false
	s := only[send](t, press(v, c, "y"))
	if s.sub == nil || len(s.sub.Items) != 1 || s.sub.Items[0].Interrupt.ID != idEmail || s.sub.Items[0].Decisions[0].Type != client.Reject {
		t.Fatalf("y sends %+v", s.sub)
	}

	// Gone from the list: the page says so once refreshed, and esc goes
	// home (a detail would show another interrupt).
	v.items.apply(nil, map[string]bool{})
	v.gone[idEmail] = gone{kind: goneAnswered, id: idEmail, by: &client.Winner{Reviewer: "bob"}}
	c.refresh(v)
	if got := draw(v, c); !strings.Contains(got, "answered elsewhere (by bob") {
		t.Fatalf("after it left:\n%s", got)
	}
	as := press(v, c, "esc")
	if len(as) != 2 || as[0] != (goHome{}) || !strings.Contains(only[status](t, as).text, "Nothing was sent.") {
		t.Fatalf("esc after it left: %#v", as)
	}
}

func TestEditorScreenAlone(t *testing.T) {
	it := fixture(t, "middleware-js-email", idEmail, time.Minute)
	v, _ := bareEnv(t, 80, 24, it)
	ed := newFeedbackEditor(&it, v.drafts.of(&it), client.Reject)
	ed.resize(v)
	ed.focus()
	v.front = ed
	typeInto(v, ed, "wrong address")
	if got := draw(v, ed); !strings.Contains(got, "Reason for rejecting send_email") || !strings.Contains(got, "wrong address") {
		t.Fatalf("editor:\n%s", got)
	}

	as := press(v, ed, "ctrl+s")
	if e := only[saveDraft](t, as).e; e.id != idEmail || e.feedback == nil || *e.feedback != "wrong address" {
		t.Fatalf("ctrl+s keeps %+v", e)
	}
	if r := only[record](t, as); r.id != idEmail || r.slot != 0 || r.dec.Type != client.Reject || r.dec.Message != "wrong address" {
		t.Fatalf("ctrl+s records %+v", r)
	}

	// esc keeps the text, then leaves; with its interrupt gone, home.
	as = press(v, ed, "esc")
	if len(as) != 2 || as[1] != (popScreen{}) || *only[saveDraft](t, as).e.feedback != "wrong address" {
		t.Fatalf("esc: %#v", as)
	}
	v.items.apply(nil, map[string]bool{})
	ed.refresh(v)
	if got := draw(v, ed); !strings.Contains(got, "no longer pending") || !strings.Contains(got, "Your text is kept") {
		t.Fatalf("after it left:\n%s", got)
	}
	if hs := ed.hints(v); len(hs) == 0 || !sameBinding(hs[len(hs)-1].b, v.keys.Back) || strings.Contains(ansi.Strip(hs[0].b.Help().Desc), "accept") {
		t.Fatalf("hints offer to accept a gone interrupt: %+v", hs)
	}
	as = press(v, ed, "esc")
	if len(as) != 3 || as[1] != (goHome{}) || !strings.Contains(only[status](t, as).text, "What you typed is kept in drafts.json") {
		t.Fatalf("esc after it left: %#v", as)
	}

	// No external editor on a hub: ctrl+e says why and runs nothing.
	v.noExternalEditor = true
	if as := press(v, ed, "ctrl+e"); len(as) != 0 || !strings.Contains(draw(v, ed), "no external editor here") {
		t.Fatalf("ctrl+e with no external editor: %#v", as)
	}
}

func TestFormScreenAlone(t *testing.T) {
	it := schemaFixture(t, "form-zod", idForm, time.Minute)
	v, _ := bareEnv(t, 80, 24, it)
	form, err := client.FormOf(it.ResponseSchema)
	if err != nil {
		t.Fatal(err)
	}
	s := newFormScreen(&it, v.drafts.of(&it), form)
	s.resize(v)
	s.focus()
	v.front = s
	if got := draw(v, s); !strings.Contains(got, "▸ framework *") {
		t.Fatalf("form:\n%s", got)
	}
	press(v, s, "2")
	press(v, s, "tab")
	s.key(v, space())
	press(v, s, "tab")
	typeInto(v, s, "150")

	// Refused: the problem next to its field, nothing recorded, the typing
	// kept in the draft.
	as := press(v, s, "ctrl+s")
	for _, a := range as {
		if _, ok := a.(record); ok {
			t.Fatalf("a refused answer was recorded: %#v", as)
		}
	}
	if e := only[saveDraft](t, as).e; e.feedback == nil || !strings.Contains(*e.feedback, `"budget": 150`) {
		t.Fatalf("the draft keeps %+v", e)
	}
	if got := draw(v, s); !strings.Contains(got, "✗ must be at most 100 (got 150)") {
		t.Fatalf("after ctrl+s:\n%s", got)
	}

	for range 3 {
		s.key(v, backspace())
	}
	typeInto(v, s, "50")
	r := only[record](t, press(v, s, "ctrl+s"))
	var got map[string]any
	if err := json.Unmarshal(r.dec.Value, &got); err != nil || r.dec.Type != client.Respond || got["framework"] != "vue" || got["tests"] != true || got["budget"] != 50.0 {
		t.Fatalf("recorded %+v (%s)", r.dec, r.dec.Value)
	}

	// ctrl+j: the JSON editor takes over, on what the form holds.
	as = press(v, s, "ctrl+j")
	if j := only[toJSON](t, as); j.id != idForm || j.decision != client.Respond || j.external.Code != 0 {
		t.Fatalf("ctrl+j: %#v", as)
	}
}

func TestPromptScreenAlone(t *testing.T) {
	v, _ := bareEnv(t, 80, 24)
	p := &promptScreen{question: "Discard your draft?", yes: "discards it", onYes: []act{discardDraft{"x"}}, onNo: []act{status{"The draft is kept.", true}}}
	if got := draw(v, p); !strings.Contains(got, "Discard your draft?") || !strings.Contains(got, "y discards it · any other key stays") {
		t.Fatalf("prompt:\n%s", got)
	}
	if as := press(v, p, "y"); len(as) != 2 || as[0] != (popScreen{}) || as[1] != (discardDraft{"x"}) {
		t.Fatalf("y: %#v", as)
	}
	if as := press(v, p, "q"); len(as) != 2 || as[1] != (status{"The draft is kept.", true}) {
		t.Fatalf("q (quitToo unset) answers no: %#v", as)
	}
	p.quitToo = true
	if as := press(v, p, "q"); len(as) != 2 || as[1] != (discardDraft{"x"}) {
		t.Fatalf("q with quitToo answers yes: %#v", as)
	}
}

// What answers an interrupt carries every other complete draft of its
// thread; a sibling's draft that the pipeline refuses stays behind, and
// the rest still go together (one resume for the thread).
func TestPrepareLeavesOnlyTheRefusedSiblingBehind(t *testing.T) {
	const idThird = "cccc3333cccc3333cccc3333cccc3333"
	a := fixture(t, "middleware-js-email", idEmail, time.Minute)
	b := fixture(t, "middleware-js-ops", idOps, time.Minute)
	c := fixture(t, "middleware-js-email", idThird, time.Minute)
	b.ThreadID, c.ThreadID = a.ThreadID, a.ThreadID
	v, _ := bareEnv(t, 80, 24, a, b, c)
	v.drafts.of(&a).decisions[0] = &client.Decision{Type: client.Approve}
	db := v.drafts.of(&b) // an edit of delete_records, which allows none
	db.decisions[0] = &client.Decision{Type: client.Edit, Args: json.RawMessage(`{"table":"x"}`)}
	db.decisions[1] = &client.Decision{Type: client.Approve}
	v.drafts.of(&c).decisions[0] = &client.Decision{Type: client.Reject, Message: "no"}

	p := v.prepare(idEmail)
	if p.err != nil || p.sub == nil {
		t.Fatalf("prepared: %v", p.err)
	}
	var ids []string
	for _, x := range p.sub.Items {
		ids = append(ids, x.Interrupt.ID)
	}
	if strings.Join(ids, ",") != idEmail+","+idThird {
		t.Fatalf("sends %v, want this one and the third (the refused sibling left behind)", ids)
	}
	// The refused draft's own preparation says why.
	if p := v.prepare(idOps); p.err == nil || !strings.Contains(p.err.Error(), `"edit" is not allowed here`) {
		t.Fatalf("the refused draft prepared: %v", p.err)
	}
}

// A changed line longer than the window wraps with its sign on every row,
// and each row's style ends on that row: without colour, the rows of the
// proposed and the edited text still say which is which.
func TestDiffRowsKeepTheirSign(t *testing.T) {
	lo := look{st: newStyles(), keys: defaultKeys(), theme: "dark"}
	tweet := "We shipped v2.0 today! Faster sync, offline mode, and 40 bug fixes. Thanks to everyone who helped."
	before := json.RawMessage(`{"text":"` + tweet + `"}`)
	after := json.RawMessage(`{"text":"` + strings.Replace(tweet, "40", "10", 1) + `"}`)
	out := lo.diffView(before, after, 60)
	var rows []string
	for _, row := range strings.Split(out, "\n") {
		if strings.Count(row, "\x1b[") != 0 && !strings.HasSuffix(row, "m") {
			t.Errorf("row ends inside a style: %q", row)
		}
		rows = append(rows, ansi.Strip(row))
	}
	var minus, plus int
	for _, r := range rows[1:] { // after "Changed: …"
		if ansi.StringWidth(r) > 60 {
			t.Errorf("row wider than 60: %q", r)
		}
		switch {
		case strings.HasPrefix(r, "- "):
			minus++
		case strings.HasPrefix(r, "+ "):
			plus++
		case strings.HasPrefix(r, "  "):
		default:
			t.Errorf("row without a sign: %q", r)
		}
	}
	flat := strings.Join(rows, "\n")
	if minus < 2 || plus < 2 || !strings.Contains(flat, "[40]") || !strings.Contains(flat, "[10]") {
		t.Fatalf("diff:\n%s", flat)
	}
}

// Side by side, each column's rows carry their side's sign and each row's
// style ends before the separator: no colour of one side runs into the
// other, and without colour a wrapped row still says which side it is.
func TestSideBySideRowsKeepTheirSide(t *testing.T) {
	lo := look{st: newStyles(), keys: defaultKeys(), theme: "dark", sideBySide: true}
	tweet := "We shipped v2.0 today! Faster sync, offline mode, and 40 bug fixes. Thanks to everyone who helped."
	before := json.RawMessage(`{"text":"` + tweet + `"}`)
	after := json.RawMessage(`{"text":"` + strings.Replace(tweet, "40", "10", 1) + `"}`)
	for _, w := range []int{80, 200} {
		out := lo.diffView(before, after, w)
		changed := 0
		for _, row := range strings.Split(out, "\n")[2:] { // after "Changed" and the header
			left, right, ok := strings.Cut(row, " │ ")
			if !ok {
				t.Fatalf("%d: row without the separator: %q", w, row)
			}
			if k := strings.LastIndex(left, "\x1b["); k >= 0 && !strings.HasPrefix(left[k:], "\x1b[m") {
				t.Errorf("%d: a style runs over the separator: %q", w, row)
			}
			l, r := ansi.Strip(left), ansi.Strip(right)
			if strings.TrimSpace(l) == "{" || strings.TrimSpace(l) == "}" {
				continue
			}
			if !strings.HasPrefix(l, "-") || !strings.HasPrefix(r, "+") {
				t.Errorf("%d: a row without its sides' signs: %q | %q", w, l, r)
			}
			changed++
		}
		if min := map[int]int{80: 3, 200: 1}[w]; changed < min || !strings.Contains(ansi.Strip(out), "[40]") || !strings.Contains(ansi.Strip(out), "[10]") {
			t.Fatalf("%d: %d changed rows:\n%s", w, changed, ansi.Strip(out))
		}
	}
}
