package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
)

// The footer: the one key bar every screen has, generated from the hints
// it gives (never written by hand). One style at every width: "key what",
// two spaces apart, the keys the interrupt does not allow said in words at
// the end (struck-out text does not show on every terminal). Where it does
// not fit, the hints least needed go first (quit, filter, the reverse of
// tab), then, from the right, the others but back and help; one "…"
// stands where they were: "?" (help) lists every key.

// footerGap is what stands between two hints.
const footerGap = "  "

// footer draws hints into w columns; lead, if any, comes first (what
// typing does now: "type to filter").
func footer(st styles, k keyMap, lead string, hs []hint, w int) string {
	type item struct {
		text string
		// optional: left out first when the bar is short; more: next;
		// kept: never left out (back, help).
		optional, more, kept bool
	}
	var items []item
	if lead != "" {
		items = append(items, item{text: lead, kept: true})
	}
	var off []string
	for _, h := range hs {
		help := h.b.Help()
		if h.off {
			off = append(off, help.Key)
			continue
		}
		items = append(items, item{text: st.key.Render(help.Key) + " " + help.Desc, more: h.more,
			optional: sameBinding(h.b, k.Quit) || sameBinding(h.b, k.Filter) || sameBinding(h.b, k.PrevField),
			kept:     sameBinding(h.b, k.Back) || sameBinding(h.b, k.Help)})
	}
	if len(off) > 0 {
		items = append(items, item{text: st.faint.Render("not allowed: " + strings.Join(off, " "))})
	}
	// dropped[i]: items[i] gave way; one "…" stands where the first of
	// them (from the left) stood, so nothing is cut without a mark.
	dropped := make([]bool, len(items))
	bar := func() string {
		var texts []string
		ellipsis := false
		for i, it := range items {
			if !dropped[i] {
				texts = append(texts, it.text)
			} else if !ellipsis {
				texts, ellipsis = append(texts, "…"), true
			}
		}
		return strings.Join(texts, footerGap)
	}
	// The hints least needed go first, from the right; then, from the
	// right, any other but back, help and the lead.
	for _, pass := range []func(item) bool{
		func(it item) bool { return it.optional },
		func(it item) bool { return it.more },
		func(it item) bool { return !it.kept },
	} {
		for i := len(items) - 1; i >= 0 && ansi.StringWidth(bar()) > w; i-- {
			if !dropped[i] && pass(items[i]) {
				dropped[i] = true
			}
		}
	}
	return ansi.Truncate(bar(), w, "…")
}

// sameBinding reports whether a and b are the same keys (as shown),
// whatever a screen calls them ("esc clear filter" is back).
func sameBinding(a, b key.Binding) bool { return a.Help().Key == b.Help().Key }
