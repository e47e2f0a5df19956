package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
)

// Notifications that reach the reviewer wherever the terminal is: they are
// escape sequences written to the terminal itself, so over SSH the laptop's
// terminal shows them with nothing installed on either side.

// Notify modes (the profile's `notify:`).
const (
	NotifyOff     = "off"
	NotifyBell    = "bell"
	NotifyDesktop = "desktop" // a desktop notification where the terminal shows one, else the bell
)

// Terminal kinds, by the notification sequence they understand.
const (
	termPlain  = ""       // the bell only
	termOSC9   = "osc9"   // iTerm2, WezTerm, Windows Terminal, ConEmu, Ghostty
	termOSC777 = "osc777" // urxvt, foot, Ghostty
	termKitty  = "kitty"  // kitty's OSC 99
)

// TerminalKind guesses which notification sequence the terminal shows from
// the environment: what the terminal sets locally, and what SSH forwards
// (TERM always; LC_TERMINAL, which iTerm2 sets, by the default SendEnv LC_*).
func TerminalKind(getenv func(string) string) string {
	prog := strings.ToLower(getenv("TERM_PROGRAM"))
	switch {
	case getenv("KITTY_WINDOW_ID") != "" || strings.Contains(getenv("TERM"), "kitty"):
		return termKitty
	case strings.EqualFold(getenv("LC_TERMINAL"), "iTerm2"), prog == "iterm.app", prog == "wezterm",
		getenv("WT_SESSION") != "", prog == "ghostty", strings.Contains(getenv("TERM"), "ghostty"):
		return termOSC9
	case strings.HasPrefix(getenv("TERM"), "foot"), strings.HasPrefix(getenv("TERM"), "rxvt"):
		return termOSC777
	}
	return termPlain
}

// notification writes what arrived as the bytes a terminal of kind shows
// as a desktop notification (the bell where it shows none), wrapped for
// tmux when inside it. title and body are made inert first: a server's
// bytes never become part of a sequence.
func notification(kind string, tmux bool, title, body string) string {
	title, body = clean(title), clean(body)
	var seq string
	switch kind {
	case termOSC9:
		seq = "\x1b]9;" + title + ": " + body + "\a"
	case termOSC777:
		seq = "\x1b]777;notify;" + title + ";" + body + "\a"
	case termKitty:
		// Title, then body (d=1: done), the same notification id.
		seq = "\x1b]99;i=hitl:d=0:p=title;" + title + "\x1b\\" + "\x1b]99;i=hitl:d=1:p=body;" + body + "\x1b\\"
	default:
		return "\a"
	}
	if tmux {
		// tmux passes a sequence on only inside its DCS passthrough, with
		// every ESC doubled (and `allow-passthrough on`).
		seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq
}

// clean makes text safe inside a notification: inert (no ESC, BEL or other
// control can end the sequence or start another), on one line, and without
// the ";" that splits a sequence's fields.
func clean(s string) string {
	return strings.ReplaceAll(inert.Line(s), ";", ",")
}

// notifyText says what arrived: how many, from which graphs, with which
// tools.
func notifyText(fresh []client.Interrupt) (title, body string) {
	title = "hitl: 1 new interrupt"
	if len(fresh) > 1 {
		title = fmt.Sprintf("hitl: %d new interrupts", len(fresh))
	}
	seen := map[string]bool{}
	var parts []string
	for _, it := range fresh {
		what := it.GraphID
		if len(it.Actions) > 0 {
			names := make([]string, len(it.Actions))
			for i, a := range it.Actions {
				names[i] = a.Name
			}
			what += " " + strings.Join(names, ", ")
		} else {
			what += " " + present.BadgeOf(it)
		}
		if !seen[what] {
			seen[what] = true
			parts = append(parts, what)
		}
	}
	sort.Strings(parts)
	if len(parts) > 3 {
		parts = append(parts[:3], fmt.Sprintf("and %d more", len(parts)-3))
	}
	return title, strings.Join(parts, " · ")
}

// idleAfter is how long without a key press counts as "not looking" on a
// terminal that does not report focus.
const idleAfter = time.Minute

// notify tells the reviewer about new interrupts, when they are not
// looking: the terminal lost focus, or (where it does not say) no key was
// pressed for a minute.
func (m *Model) notify(fresh []client.Interrupt) tea.Cmd {
	if len(fresh) == 0 || m.notifyMode == NotifyOff {
		return nil
	}
	looking := m.focused
	if !m.focusKnown {
		looking = m.opts.Now().Sub(m.lastKey) < idleAfter
	}
	if looking {
		return nil
	}
	if m.notifyMode == NotifyBell {
		return m.pace.written(tea.Raw("\a"))
	}
	title, body := notifyText(fresh)
	return m.pace.written(tea.Raw(notification(m.termKind, m.inTmux, title, body)))
}
