package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
)

// keyMap holds every binding; help and the key bar are built from it.
type keyMap struct {
	Up, Down, Open, Back, NextAction, PrevAction    key.Binding
	Approve, Edit, Reject, Respond, Ignore          key.Binding
	ApproveAll, Submit, Confirm, ShowJSON, DiffMode key.Binding
	Filter, Sort, Refresh, Conversation, History    key.Binding
	Help, Quit, ForceQuit, ScrollDown, ScrollUp     key.Binding
	Accept, External, NextField                     key.Binding
	PauseRun, ResumeRun, CancelRun, Check           key.Binding
	Yes, PageDown, PageUp, Top, Bottom, Suspend     key.Binding
	Narrower, Wider                                 key.Binding
	Discard, Failures                               key.Binding
	// End dismisses an interrupt, or, on the confirm screen of rejects,
	// stops the thread there (client.Ending).
	End key.Binding
	// Mark marks a row for a bulk approve (bulk.go).
	Mark key.Binding
	// A form's keys (form.go).
	PrevField, Toggle, ChoiceNext, ChoicePrev, Pick, RawJSON key.Binding
}

func defaultKeys() keyMap {
	b := func(keys []string, k, help string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, help))
	}
	return keyMap{
		Up:           b([]string{"k", "up"}, "↑/k", "up"),
		Down:         b([]string{"j", "down"}, "↓/j", "down"),
		Open:         b([]string{"enter"}, "enter", "open"),
		Back:         b([]string{"esc"}, "esc", "back"),
		NextAction:   b([]string{"tab"}, "tab", "next"),
		PrevAction:   b([]string{"shift+tab"}, "shift+tab", "previous"),
		Approve:      b([]string{"a"}, "a", "approve"),
		Edit:         b([]string{"e"}, "e", "edit"),
		Reject:       b([]string{"r"}, "r", "reject"),
		Respond:      b([]string{"f"}, "f", "respond"),
		Ignore:       b([]string{"i"}, "i", "ignore"),
		ApproveAll:   b([]string{"A"}, "A", "approve all"),
		Submit:       b([]string{"s"}, "s", "submit"),
		Confirm:      b([]string{"y", "enter"}, "y/enter", "send"),
		ShowJSON:     b([]string{"v"}, "v", "resume JSON"),
		DiffMode:     b([]string{"t"}, "t", "unified/side-by-side"),
		Filter:       b([]string{"/"}, "/", "filter"),
		Sort:         b([]string{"o"}, "o", "sort"),
		Refresh:      b([]string{"R"}, "R", "refresh"),
		Conversation: b([]string{"c"}, "c", "conversation"),
		History:      b([]string{"H"}, "H", "history"),
		Help:         b([]string{"?"}, "?", "help"),
		Quit:         b([]string{"q"}, "q", "quit"),
		ForceQuit:    b([]string{"ctrl+c"}, "ctrl+c", "quit now"),
		ScrollDown:   b([]string{"J", "ctrl+d"}, "J", "scroll detail down"),
		ScrollUp:     b([]string{"K", "ctrl+u"}, "K", "scroll detail up"),
		PageDown:     b([]string{"pgdown", "ctrl+f"}, "pgdn", "page down"),
		PageUp:       b([]string{"pgup", "ctrl+b"}, "pgup", "page up"),
		Top:          b([]string{"home", "g"}, "g/home", "first"),
		Bottom:       b([]string{"end", "G"}, "G/end", "last"),
		Suspend:      b([]string{"ctrl+z"}, "ctrl+z", "suspend"),
		Narrower:     b([]string{"<"}, "<", "narrower list"),
		Wider:        b([]string{">"}, ">", "wider list"),
		Accept:       b([]string{"ctrl+s"}, "ctrl+s", "accept"),
		External:     b([]string{"ctrl+e"}, "ctrl+e", "$EDITOR"),
		NextField:    b([]string{"tab"}, "tab", "next field"),
		PauseRun:     b([]string{"P"}, "P", "pause run"),
		ResumeRun:    b([]string{"U"}, "U", "resume run"),
		CancelRun:    b([]string{"X"}, "X", "cancel run"),
		Check:        b([]string{"C"}, "C", "check unknown"),
		Yes:          b([]string{"y"}, "y", "yes"),
		PrevField:    b([]string{"shift+tab"}, "shift+tab", "previous field"),
		Toggle:       b([]string{"space"}, "space", "toggle"),
		ChoiceNext:   b([]string{"right", "l", "j"}, "→/j", "next choice"),
		ChoicePrev:   b([]string{"left", "h", "k"}, "←/k", "previous choice"),
		Pick:         b([]string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, "1-9", "pick"),
		RawJSON:      b([]string{"ctrl+j"}, "ctrl+j", "as JSON"),
		Discard:      b([]string{"D"}, "D", "discard draft"),
		Failures:     b([]string{"E"}, "E", "failed runs"),
		End:          b([]string{"x"}, "x", "dismiss / stop"),
		Mark:         b([]string{"space"}, "space", "mark for A"),
	}
}

// bindings names every binding for the config file's `keys:` section.
func (k *keyMap) bindings() map[string]*key.Binding {
	return map[string]*key.Binding{
		"up": &k.Up, "down": &k.Down, "open": &k.Open, "back": &k.Back,
		"next_action": &k.NextAction, "prev_action": &k.PrevAction,
		"approve": &k.Approve, "edit": &k.Edit, "reject": &k.Reject, "respond": &k.Respond, "ignore": &k.Ignore,
		"approve_all": &k.ApproveAll, "submit": &k.Submit, "confirm": &k.Confirm, "show_json": &k.ShowJSON,
		"diff_mode": &k.DiffMode, "filter": &k.Filter, "sort": &k.Sort, "refresh": &k.Refresh,
		"conversation": &k.Conversation, "history": &k.History, "help": &k.Help, "quit": &k.Quit,
		"scroll_down": &k.ScrollDown, "scroll_up": &k.ScrollUp, "accept": &k.Accept, "external": &k.External,
		"pause_run": &k.PauseRun, "resume_run": &k.ResumeRun, "cancel_run": &k.CancelRun, "check": &k.Check, "yes": &k.Yes,
		"page_down": &k.PageDown, "page_up": &k.PageUp, "top": &k.Top, "bottom": &k.Bottom, "suspend": &k.Suspend,
		"narrower": &k.Narrower, "wider": &k.Wider,
		"prev_field": &k.PrevField, "toggle": &k.Toggle, "choice_next": &k.ChoiceNext, "choice_prev": &k.ChoicePrev,
		"pick": &k.Pick, "raw_json": &k.RawJSON, "discard": &k.Discard, "failures": &k.Failures, "end": &k.End, "mark": &k.Mark,
	}
}

// KeyNames lists the names the config file's `keys:` section takes.
func KeyNames() []string {
	var k keyMap
	names := make([]string, 0, 32)
	for n := range k.bindings() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// withOverrides rebinds the named actions to the given keys, keeping help text.
func (k keyMap) withOverrides(over map[string][]string) (keyMap, error) {
	b := k.bindings()
	for name, keys := range over {
		binding, ok := b[name]
		if !ok {
			return k, fmt.Errorf("keys: %q is not a key action; use one of %s", name, strings.Join(KeyNames(), ", "))
		}
		if len(keys) == 0 {
			return k, fmt.Errorf("keys: %q has no key", name)
		}
		*binding = key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(keys, "/"), binding.Help().Desc))
	}
	return k, nil
}

// name is how a binding's keys are written in a sentence ("y/enter").
func name(b key.Binding) string { return b.Help().Key }

// ShortHelp and FullHelp make keyMap a help.KeyMap for the `?` screen.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Approve, k.Edit, k.Reject, k.Respond, k.Help, k.Quit}
}

func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageDown, k.PageUp, k.Top, k.Bottom, k.Open, k.Back},
		{k.ScrollDown, k.ScrollUp, k.NextAction, k.PrevAction, k.Narrower, k.Wider},
		{k.Approve, k.Edit, k.Reject, k.Respond, k.Ignore, k.ApproveAll, k.Submit, k.Discard, k.End, k.Mark},
		{k.Confirm, k.ShowJSON, k.DiffMode, k.Accept, k.External},
		{k.Filter, k.Sort, k.Refresh, k.Check, k.Conversation, k.History, k.Failures},
		{k.Help, k.Quit, k.ForceQuit, k.Suspend},
		{k.PauseRun, k.ResumeRun, k.CancelRun},
		{k.NextField, k.PrevField, k.Toggle},
		{k.ChoicePrev, k.ChoiceNext, k.Pick, k.RawJSON},
	}
}
