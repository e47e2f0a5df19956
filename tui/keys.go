package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
)

// keyMap holds every binding; help and the key bar are built from it. Each
// field is one action of the actions table below, which alone says its
// name, default keys and help.
type keyMap struct {
	Up, Down, Open, Back, NextAction, PrevAction    key.Binding
	Approve, Edit, Reject, Respond, Ignore          key.Binding
	ApproveAll, Submit, Confirm, ShowJSON, DiffMode key.Binding
	// ApproveAlways approves for good what an opencode request or a
	// Gemini CLI shell command names (client.Payload.Always).
	ApproveAlways                                key.Binding
	Filter, Sort, Refresh, Conversation, History key.Binding
	Help, Quit, ForceQuit, ScrollDown, ScrollUp  key.Binding
	Accept, External, NextField                  key.Binding
	PauseRun, ResumeRun, CancelRun, Check        key.Binding
	Yes, PageDown, PageUp, Top, Bottom, Suspend  key.Binding
	Narrower, Wider                              key.Binding
	Discard, Failures                            key.Binding
	// End dismisses an interrupt, or, on the confirm screen of rejects,
	// stops the thread there (client.Ending).
	End key.Binding
	// Mark marks a row for a bulk approve (bulk.go).
	Mark key.Binding
	// A form's keys (form.go).
	PrevField, Toggle, ChoiceNext, ChoicePrev, Pick, RawJSON key.Binding
}

// action is one rebindable thing a key does.
type action struct {
	name  string                     // in the config file's keys: section
	of    func(*keyMap) *key.Binding // its field
	keys  []string                   // by default
	shown string                     // how help writes the default keys
	desc  string                     // what help says it does
	group int                        // its column on the help screen (FullHelp)
}

// actions is the key map, defined once: the defaults, the names the config
// file takes and the help screen's columns all come from it.
var actions = []action{
	{"up", func(k *keyMap) *key.Binding { return &k.Up }, []string{"k", "up"}, "↑/k", "up", 0},
	{"down", func(k *keyMap) *key.Binding { return &k.Down }, []string{"j", "down"}, "↓/j", "down", 0},
	{"page_down", func(k *keyMap) *key.Binding { return &k.PageDown }, []string{"pgdown", "ctrl+f"}, "pgdn", "page down", 0},
	{"page_up", func(k *keyMap) *key.Binding { return &k.PageUp }, []string{"pgup", "ctrl+b"}, "pgup", "page up", 0},
	{"top", func(k *keyMap) *key.Binding { return &k.Top }, []string{"home", "g"}, "g/home", "first", 0},
	{"bottom", func(k *keyMap) *key.Binding { return &k.Bottom }, []string{"end", "G"}, "G/end", "last", 0},
	{"open", func(k *keyMap) *key.Binding { return &k.Open }, []string{"enter"}, "enter", "open", 0},
	{"back", func(k *keyMap) *key.Binding { return &k.Back }, []string{"esc"}, "esc", "back", 0},

	{"scroll_down", func(k *keyMap) *key.Binding { return &k.ScrollDown }, []string{"J", "ctrl+d"}, "J", "scroll detail down", 1},
	{"scroll_up", func(k *keyMap) *key.Binding { return &k.ScrollUp }, []string{"K", "ctrl+u"}, "K", "scroll detail up", 1},
	{"next_action", func(k *keyMap) *key.Binding { return &k.NextAction }, []string{"tab"}, "tab", "next", 1},
	{"prev_action", func(k *keyMap) *key.Binding { return &k.PrevAction }, []string{"shift+tab"}, "shift+tab", "previous", 1},
	{"narrower", func(k *keyMap) *key.Binding { return &k.Narrower }, []string{"<"}, "<", "narrower list", 1},
	{"wider", func(k *keyMap) *key.Binding { return &k.Wider }, []string{">"}, ">", "wider list", 1},

	{"approve", func(k *keyMap) *key.Binding { return &k.Approve }, []string{"a"}, "a", "approve", 2},
	{"edit", func(k *keyMap) *key.Binding { return &k.Edit }, []string{"e"}, "e", "edit", 2},
	{"reject", func(k *keyMap) *key.Binding { return &k.Reject }, []string{"r"}, "r", "reject", 2},
	{"respond", func(k *keyMap) *key.Binding { return &k.Respond }, []string{"f"}, "f", "respond", 2},
	{"ignore", func(k *keyMap) *key.Binding { return &k.Ignore }, []string{"i"}, "i", "ignore", 2},
	{"approve_all", func(k *keyMap) *key.Binding { return &k.ApproveAll }, []string{"A"}, "A", "approve all", 2},
	{"approve_always", func(k *keyMap) *key.Binding { return &k.ApproveAlways }, []string{"L"}, "L", "approve for good", 2},
	{"submit", func(k *keyMap) *key.Binding { return &k.Submit }, []string{"s"}, "s", "submit", 2},
	{"discard", func(k *keyMap) *key.Binding { return &k.Discard }, []string{"D"}, "D", "discard draft", 2},
	{"end", func(k *keyMap) *key.Binding { return &k.End }, []string{"x"}, "x", "dismiss / stop", 2},
	{"mark", func(k *keyMap) *key.Binding { return &k.Mark }, []string{"space"}, "space", "mark for A", 2},

	{"confirm", func(k *keyMap) *key.Binding { return &k.Confirm }, []string{"y", "enter"}, "y/enter", "send", 3},
	{"show_json", func(k *keyMap) *key.Binding { return &k.ShowJSON }, []string{"v"}, "v", "resume JSON", 3},
	{"diff_mode", func(k *keyMap) *key.Binding { return &k.DiffMode }, []string{"t"}, "t", "unified/side-by-side", 3},
	{"accept", func(k *keyMap) *key.Binding { return &k.Accept }, []string{"ctrl+s"}, "ctrl+s", "accept", 3},
	{"external", func(k *keyMap) *key.Binding { return &k.External }, []string{"ctrl+e"}, "ctrl+e", "$EDITOR", 3},

	{"filter", func(k *keyMap) *key.Binding { return &k.Filter }, []string{"/"}, "/", "filter", 4},
	{"sort", func(k *keyMap) *key.Binding { return &k.Sort }, []string{"o"}, "o", "sort", 4},
	{"refresh", func(k *keyMap) *key.Binding { return &k.Refresh }, []string{"R"}, "R", "refresh", 4},
	{"check", func(k *keyMap) *key.Binding { return &k.Check }, []string{"C"}, "C", "check unknown", 4},
	{"conversation", func(k *keyMap) *key.Binding { return &k.Conversation }, []string{"c"}, "c", "conversation", 4},
	{"history", func(k *keyMap) *key.Binding { return &k.History }, []string{"H"}, "H", "history", 4},
	{"failures", func(k *keyMap) *key.Binding { return &k.Failures }, []string{"E"}, "E", "failed runs", 4},

	{"help", func(k *keyMap) *key.Binding { return &k.Help }, []string{"?"}, "?", "help", 5},
	{"quit", func(k *keyMap) *key.Binding { return &k.Quit }, []string{"q"}, "q", "quit", 5},
	{"force_quit", func(k *keyMap) *key.Binding { return &k.ForceQuit }, []string{"ctrl+c"}, "ctrl+c", "quit now", 5},
	{"suspend", func(k *keyMap) *key.Binding { return &k.Suspend }, []string{"ctrl+z"}, "ctrl+z", "suspend", 5},
	{"yes", func(k *keyMap) *key.Binding { return &k.Yes }, []string{"y"}, "y", "yes", -1},

	{"pause_run", func(k *keyMap) *key.Binding { return &k.PauseRun }, []string{"P"}, "P", "pause run", 6},
	{"resume_run", func(k *keyMap) *key.Binding { return &k.ResumeRun }, []string{"U"}, "U", "resume run", 6},
	{"cancel_run", func(k *keyMap) *key.Binding { return &k.CancelRun }, []string{"X"}, "X", "cancel run", 6},

	{"next_field", func(k *keyMap) *key.Binding { return &k.NextField }, []string{"tab"}, "tab", "next field", 7},
	{"prev_field", func(k *keyMap) *key.Binding { return &k.PrevField }, []string{"shift+tab"}, "shift+tab", "prev field", 7},
	{"toggle", func(k *keyMap) *key.Binding { return &k.Toggle }, []string{"space"}, "space", "toggle", 7},

	{"choice_prev", func(k *keyMap) *key.Binding { return &k.ChoicePrev }, []string{"left", "h", "k"}, "←/k", "previous choice", 8},
	{"choice_next", func(k *keyMap) *key.Binding { return &k.ChoiceNext }, []string{"right", "l", "j"}, "→/j", "next choice", 8},
	{"pick", func(k *keyMap) *key.Binding { return &k.Pick }, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, "1-9", "pick", 8},
	{"raw_json", func(k *keyMap) *key.Binding { return &k.RawJSON }, []string{"ctrl+j"}, "ctrl+j", "as JSON", 8},
}

func defaultKeys() keyMap {
	var k keyMap
	for _, a := range actions {
		*a.of(&k) = key.NewBinding(key.WithKeys(a.keys...), key.WithHelp(a.shown, a.desc))
	}
	return k
}

// bindings names every binding for the config file's `keys:` section.
func (k *keyMap) bindings() map[string]*key.Binding {
	out := make(map[string]*key.Binding, len(actions))
	for _, a := range actions {
		out[a.name] = a.of(k)
	}
	return out
}

// KeyNames lists the names the config file's `keys:` section takes.
func KeyNames() []string {
	names := make([]string, 0, len(actions))
	for _, a := range actions {
		names = append(names, a.name)
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
	var out [][]key.Binding
	for _, a := range actions {
		if a.group < 0 {
			continue // said where it is asked (a prompt's "y")
		}
		for len(out) <= a.group {
			out = append(out, nil)
		}
		out[a.group] = append(out[a.group], *a.of(&k))
	}
	return out
}
