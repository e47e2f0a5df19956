package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Parts every scrolling screen shares: the page (a viewport the screens
// scroll themselves), its scrolling keys, its markers of what is above and
// below, and the cache that renders a page again only when what it shows
// changed.

// newPage is a scrolling page: the screen routes the scrolling keys
// itself (scroll), so the viewport has none of its own.
func newPage() viewport.Model {
	vp := viewport.New()
	vp.KeyMap = viewport.KeyMap{}
	return vp
}

// scroll moves a page viewport by the scrolling keys.
func scroll(vp *viewport.Model, k keyMap, msg tea.KeyPressMsg) {
	switch {
	case key.Matches(msg, k.Down):
		vp.ScrollDown(1)
	case key.Matches(msg, k.Up):
		vp.ScrollUp(1)
	case key.Matches(msg, k.ScrollDown):
		vp.HalfPageDown()
	case key.Matches(msg, k.ScrollUp):
		vp.HalfPageUp()
	case key.Matches(msg, k.PageDown):
		vp.PageDown()
	case key.Matches(msg, k.PageUp):
		vp.PageUp()
	case key.Matches(msg, k.Top):
		vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		vp.GotoBottom()
	}
}

// pageView draws a scrolling page into r, saying what is above and below.
func pageView(st styles, k keyMap, vp *viewport.Model, r rect) string {
	return marked(st, vp, r, name(k.Up)+", "+name(k.PageUp), name(k.Down)+", "+name(k.PageDown))
}

// marked draws a viewport into r with a marker line at the top when lines
// are scrolled out above, and at the bottom when lines are below: nothing is
// cut without saying so. up and down name the keys that scroll.
func marked(st styles, vp *viewport.Model, r rect, up, down string) string {
	body := vp.View()
	above := vp.YOffset()
	below := vp.TotalLineCount() - above - vp.Height()
	if (above <= 0 && below <= 0) || r.h < 2 {
		return body
	}
	lines := strings.Split(fit(body, r.w, r.h), "\n")
	// A marker takes the place of a line: that line is hidden too.
	if above > 0 {
		lines[0] = st.faint.Render(ansi.Truncate(fmt.Sprintf("↑ %d more lines (%s)", above+1, up), r.w, "…"))
	}
	if below > 0 {
		lines[len(lines)-1] = st.faint.Render(ansi.Truncate(fmt.Sprintf("↓ %d more lines (%s)", below+1, down), r.w, "…"))
	}
	return strings.Join(lines, "\n")
}

// cache remembers what a page was last rendered from: a key of the
// screen's own type, compared with ==.
type cache[K comparable] struct {
	key K
	set bool
}

// stale reports whether k differs from what the page shows, and takes k
// as what it will show.
func (c *cache[K]) stale(k K) bool {
	if c.set && c.key == k {
		return false
	}
	c.key, c.set = k, true
	return true
}

// reset makes the next stale true (the page's width changed, say).
func (c *cache[K]) reset() { c.set = false }

// convKey is what a page shows of a thread's conversation.
type convKey struct {
	loaded  bool
	loading bool
	err     string
	n       int
}

func convKeyOf(c *conversation) convKey {
	if c == nil {
		return convKey{}
	}
	return convKey{loaded: true, loading: c.loading, err: errText(c.err), n: len(c.messages)}
}

// errText is an error's words, "" for none (a key holds the words, not
// the error: an error's type need not be comparable).
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
