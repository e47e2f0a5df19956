package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// styles are the whole look of the app. Colours are 16-colour ANSI so that
// they read on any terminal; Bubble Tea drops them under NO_COLOR or on a
// terminal without colour, and every state is also marked in text (▸, ⚠,
// [x]) so nothing depends on colour alone.
type styles struct {
	header, title, faint, bold, selected, warn, err, ok, badge, key, keyOff, border lipgloss.Style
	added, removed, addedWord, removedWord                                          lipgloss.Style
	jsonKey, jsonString, jsonNumber, jsonLiteral, jsonPunct                         lipgloss.Style
}

func newStyles() styles {
	c := lipgloss.Color
	return styles{
		header:      lipgloss.NewStyle().Bold(true),
		title:       lipgloss.NewStyle().Bold(true).Underline(true),
		faint:       lipgloss.NewStyle().Faint(true),
		bold:        lipgloss.NewStyle().Bold(true),
		selected:    lipgloss.NewStyle().Reverse(true),
		warn:        lipgloss.NewStyle().Foreground(c("3")).Bold(true),
		err:         lipgloss.NewStyle().Foreground(c("1")).Bold(true),
		ok:          lipgloss.NewStyle().Foreground(c("2")),
		badge:       lipgloss.NewStyle().Foreground(c("6")),
		key:         lipgloss.NewStyle().Bold(true),
		keyOff:      lipgloss.NewStyle().Faint(true).Strikethrough(true),
		border:      lipgloss.NewStyle().Faint(true),
		added:       lipgloss.NewStyle().Foreground(c("2")),
		removed:     lipgloss.NewStyle().Foreground(c("1")),
		addedWord:   lipgloss.NewStyle().Foreground(c("2")).Reverse(true),
		removedWord: lipgloss.NewStyle().Foreground(c("1")).Reverse(true),
		jsonKey:     lipgloss.NewStyle().Foreground(c("4")),
		jsonString:  lipgloss.NewStyle().Foreground(c("2")),
		jsonNumber:  lipgloss.NewStyle().Foreground(c("5")),
		jsonLiteral: lipgloss.NewStyle().Foreground(c("3")),
		jsonPunct:   lipgloss.NewStyle(),
	}
}

// newHelp is the help bubble in the app's palette. Its own default styles
// draw keys and descriptions in dark greys (256-colour #626262, #4A4A4A)
// that barely read on a dark background: keys are bold here, descriptions
// in the terminal's colour, separators faint.
func newHelp() help.Model {
	h := help.New()
	key := lipgloss.NewStyle().Bold(true)
	desc := lipgloss.NewStyle()
	sep := lipgloss.NewStyle().Faint(true)
	h.Styles = help.Styles{ShortKey: key, ShortDesc: desc, ShortSeparator: sep, Ellipsis: sep,
		FullKey: key, FullDesc: desc, FullSeparator: sep}
	return h
}
