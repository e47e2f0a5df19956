package tui

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
)

type sortMode int

const (
	sortNewest sortMode = iota
	sortOldest
	sortGraph
)

func (s sortMode) String() string {
	return [...]string{"newest", "oldest", "graph"}[s]
}

// items is what the backend has pending, less what was handled, and the
// view of it the inbox shows (filtered and sorted), with the selection
// kept on an interrupt id, never a position. Every screen reads it.
type items struct {
	all      []client.Interrupt       // what the backend has, less what was handled
	shown    []client.Interrupt       // all, filtered and sorted
	byID     map[string]int           // index into all
	warn     map[string]inert.Warning // per interrupt id, computed once: it reads the whole payload
	search   map[string]string        // per interrupt id: what `/` matches, lower-cased, built once
	summary  map[string]string        // per interrupt id: the one-line gist, inert, built once
	widest   int                      // the widest summary shown, in cells
	columns  rowLayout                // the widest of each column of the rows shown (inboxrows.go)
	selected string
	handled  map[string]bool
	filter   string
	sort     sortMode
	loaded   bool
	newCount int // arrived since the reviewer last looked
	// retry are the interrupts threads whose run failed still hold, by id:
	// not listed, but a decision can answer them again (failures.go).
	retry map[string]*client.Interrupt
	// known are the ids of the last complete listing: what counts as
	// having arrived since (a partial listing does not change it).
	known map[string]bool
	// loading is a long listing's progress (nil: none under way).
	loading *client.Progress
}

func newItems() items {
	return items{byID: map[string]int{}, warn: map[string]inert.Warning{}, search: map[string]string{}, summary: map[string]string{}, handled: map[string]bool{}}
}

// current is the interrupt under the cursor.
func (x *items) current() *client.Interrupt {
	for i := range x.shown {
		if x.shown[i].ID == x.selected {
			return &x.shown[i]
		}
	}
	return nil
}

// index is the position of the selection in shown (-1: none).
func (x *items) index() int {
	for i := range x.shown {
		if x.shown[i].ID == x.selected {
			return i
		}
	}
	return -1
}

// byID finds a pending interrupt, shown or filtered out.
func (x *items) get(id string) *client.Interrupt {
	if i, ok := x.byID[id]; ok && i < len(x.all) && x.all[i].ID == id {
		return &x.all[i]
	}
	return x.retry[id]
}

// apply takes a fresh list from the backend, keeping the selection on the
// same interrupt id. It reports whether the item under the cursor changed
// because of it (moved), whether the rows shown changed (shifted: rows
// arrived, left or changed places), and what arrived since the last list.
func (x *items) apply(list []client.Interrupt, handled map[string]bool) (moved bool, prev string, arrived []client.Interrupt, shifted bool) {
	for id := range handled {
		x.handled[id] = true
	}
	rows := make([]string, len(x.shown))
	for i := range x.shown {
		rows[i] = x.shown[i].ID
	}
	prevIdx := x.index()
	prev = x.selected
	prevThread := x.threadOf(prev)
	known := x.known
	x.known = make(map[string]bool, len(list))
	x.loading = nil
	x.all = x.all[:0]
	fresh := 0
	for _, it := range list {
		if x.handled[it.ID] {
			continue
		}
		x.known[it.ID] = true
		if x.loaded && !known[it.ID] {
			fresh++
			arrived = append(arrived, it)
		}
		if _, ok := x.warn[it.ID]; !ok {
			x.warn[it.ID] = present.Warnings(it)
		}
		x.all = append(x.all, it)
	}
	x.newCount += fresh
	x.rebuild()
	x.keepNear(prev, prevThread, prevIdx)
	shifted = x.loaded && !slices.EqualFunc(rows, x.shown, func(id string, it client.Interrupt) bool { return id == it.ID })
	x.loaded = true
	return prev != "" && x.selected != prev, prev, arrived, shifted
}

// partial takes what a long listing has found so far: it adds and updates,
// and removes nothing (what is not listed yet is missing, not answered). It
// reports whether the rows shown changed (as apply's shifted: not on the
// first listing, when nothing was shown to act on).
func (x *items) partial(pr client.Progress) (shifted bool) {
	rows := make([]string, len(x.shown))
	for i := range x.shown {
		rows[i] = x.shown[i].ID
	}
	p := pr
	x.loading = &p
	for _, it := range pr.Items {
		if x.handled[it.ID] {
			continue
		}
		if i, ok := x.byID[it.ID]; ok && i < len(x.all) && x.all[i].ID == it.ID {
			x.all[i] = it
			continue
		}
		if _, ok := x.warn[it.ID]; !ok {
			x.warn[it.ID] = present.Warnings(it)
		}
		x.all = append(x.all, it)
	}
	x.rebuild()
	return x.loaded && !slices.EqualFunc(rows, x.shown, func(id string, it client.Interrupt) bool { return id == it.ID })
}

// drop removes handled ids, keeping the cursor near where it was.
func (x *items) drop() {
	kept := x.all[:0]
	for _, it := range x.all {
		if !x.handled[it.ID] {
			kept = append(kept, it)
		}
	}
	prev, idx := x.selected, x.index()
	thread := ""
	if idx >= 0 {
		thread = x.shown[idx].ThreadID
	}
	x.all = kept
	x.rebuild()
	x.keepNear(prev, thread, idx)
}

// threadOf is the thread of the shown interrupt id, or "".
func (x *items) threadOf(id string) string {
	for i := range x.shown {
		if x.shown[i].ID == id {
			return x.shown[i].ThreadID
		}
	}
	return ""
}

// keepNear moves the cursor when the item it was on, prev, is gone: to
// the next waiting branch of the same thread when there is one (answering
// a fan-out moves the thread in the list), else to row idx (or the last
// row): after a send the reviewer stays where they were, not at the top.
func (x *items) keepNear(prev, thread string, idx int) {
	if prev == "" || x.selected == prev || idx < 0 || len(x.shown) == 0 {
		return
	}
	if thread != "" {
		for i := range x.shown {
			if x.shown[i].ThreadID == thread {
				x.selected = x.shown[i].ID
				return
			}
		}
	}
	x.selected = x.shown[min(idx, len(x.shown)-1)].ID
}

// rebuild filters and sorts all into shown.
func (x *items) rebuild() {
	clear(x.byID)
	for i, it := range x.all {
		x.byID[it.ID] = i
	}
	x.shown = x.shown[:0]
	q := strings.ToLower(x.filter)
	for _, it := range x.all {
		if q == "" || strings.Contains(x.searchText(&it), q) {
			x.shown = append(x.shown, it)
		}
	}
	switch x.sort {
	case sortOldest:
		sort.SliceStable(x.shown, func(i, j int) bool { return x.shown[i].UpdatedAt.Before(x.shown[j].UpdatedAt) })
	case sortGraph:
		sort.SliceStable(x.shown, func(i, j int) bool { return x.shown[i].GraphID < x.shown[j].GraphID })
	default:
		sort.SliceStable(x.shown, func(i, j int) bool { return x.shown[i].UpdatedAt.After(x.shown[j].UpdatedAt) })
	}
	// What expires goes first, soonest first (whatever the sort).
	present.DeadlinesFirst(x.shown)
	// The interrupts of one thread (fan-out branches) stay together, where
	// the sort put the thread's first one.
	first := make(map[string]int, len(x.shown))
	for i, it := range x.shown {
		if _, ok := first[it.ThreadID]; !ok {
			first[it.ThreadID] = i
		}
	}
	sort.SliceStable(x.shown, func(i, j int) bool { return first[x.shown[i].ThreadID] < first[x.shown[j].ThreadID] })
	x.widest = 0
	for i := range x.shown {
		x.widest = max(x.widest, ansi.StringWidth(x.gist(&x.shown[i])))
	}
	x.columns = listColumns(x.shown)
	if x.current() == nil {
		x.selected = ""
		if len(x.shown) > 0 {
			x.selected = x.shown[0].ID
		}
	}
}

// move moves the cursor by delta rows, within the list.
func (x *items) move(delta int) {
	if len(x.shown) == 0 {
		return
	}
	i := min(max(x.index()+delta, 0), len(x.shown)-1)
	x.selected = x.shown[i].ID
}

// threadMark says where row i sits in its thread's group: "" alone, "┬"
// first, "├" inside, "└" last.
func (x *items) threadMark(i int) string {
	t := x.shown[i].ThreadID
	prev := i > 0 && x.shown[i-1].ThreadID == t
	next := i+1 < len(x.shown) && x.shown[i+1].ThreadID == t
	switch {
	case prev && next:
		return "├"
	case prev:
		return "└"
	case next:
		return "┬"
	}
	return ""
}

// maxGist is the most of a summary the list keeps: wider than any row.
const maxGist = 1 << 10

// gist is the interrupt's one-line summary, inert (cached: it decodes the
// arguments).
func (x *items) gist(it *client.Interrupt) string {
	if s, ok := x.summary[it.ID]; ok {
		return s
	}
	s := present.Summary(*it)
	// One line of a list needs no more (the detail shows the rest): a 10
	// MB prompt is not kept and cut again at every frame.
	if len(s) > maxGist {
		cut := maxGist
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	s = inert.Line(s)
	x.summary[it.ID] = s
	return s
}

// warning is the interrupt's hidden-content warning (cached).
func (x *items) warning(it *client.Interrupt) inert.Warning {
	if w, ok := x.warn[it.ID]; ok {
		return w
	}
	return present.Warnings(*it)
}

// searchText is what `/` matches: ids, graph, tools, arguments, questions;
// built once per interrupt.
func (x *items) searchText(it *client.Interrupt) string {
	if s, ok := x.search[it.ID]; ok {
		return s
	}
	var b strings.Builder
	// The summary too: what a row shows is what `/` finds (a [raw] row's
	// summary is read from its value).
	for _, s := range []string{it.ID, it.ThreadID, it.GraphID, it.AssistantID, string(it.Schema), it.Title, it.Description, x.gist(it)} {
		b.WriteString(s)
		b.WriteByte(' ')
	}
	for _, q := range it.Questions {
		b.WriteString(q)
		b.WriteByte(' ')
	}
	for _, a := range it.Actions {
		b.WriteString(a.Name)
		b.WriteByte(' ')
		b.Write(a.Args)
		b.WriteByte(' ')
	}
	s := strings.ToLower(b.String())
	x.search[it.ID] = s
	return s
}

// same reports whether a listing brings exactly what is shown already: the
// same interrupts in the same order, as the same values, and no id newly
// handled. Then there is nothing to apply and the frame stands. A watched
// backend hands back the interrupts it parsed before when nothing changed
// (not copies), so this costs a few comparisons per interrupt, whatever
// the size of the payloads; a backend that hands back copies is taken as
// having changed something.
func (x *items) same(list []client.Interrupt, handled map[string]bool) bool {
	if !x.loaded || x.loading != nil {
		return false
	}
	for id := range handled {
		if !x.handled[id] {
			return false
		}
	}
	i := 0
	for k := range list {
		it := &list[k]
		if x.handled[it.ID] {
			continue
		}
		if i >= len(x.all) || !sameInterrupt(&x.all[i], it) {
			return false
		}
		i++
	}
	return i == len(x.all)
}

// sameInterrupt: a and b are the same value, the one parse of the same
// bytes (what a parse derives from those bytes is not compared: it shares
// their arrays).
func sameInterrupt(a, b *client.Interrupt) bool {
	return a.ID == b.ID && a.ThreadID == b.ThreadID && a.GraphID == b.GraphID && a.AssistantID == b.AssistantID &&
		a.CreatedAt.Equal(b.CreatedAt) && a.UpdatedAt.Equal(b.UpdatedAt) && a.Server == b.Server &&
		a.Busy == b.Busy && a.Retry == b.Retry && a.Checkpoint == b.Checkpoint &&
		a.Schema == b.Schema && a.Title == b.Title && a.Description == b.Description && a.Problem == b.Problem &&
		sameArray(a.Raw, b.Raw) && sameArray(a.Bytes, b.Bytes) && sameArray(a.Context, b.Context) &&
		sameArray(a.ResponseSchema, b.ResponseSchema) && sameArray(a.Questions, b.Questions) &&
		sameArray(a.Actions, b.Actions) && sameArray(a.Allowed, b.Allowed) && a.Compare == b.Compare &&
		slices.EqualFunc(a.Claims, b.Claims, func(p, q client.Claim) bool {
			return p.Reviewer == q.Reviewer && p.Client == q.Client && p.Since.Equal(q.Since) && p.Expires.Equal(q.Expires)
		})
}

// sameArray: a and b are the same slice of the same array (not merely
// equal contents).
func sameArray[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.SliceData(a) == unsafe.SliceData(b))
}
