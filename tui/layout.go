package tui

// rect is an area of the screen, in cells.
type rect struct{ x, y, w, h int }

// wideFrom is the width from which the detail sits beside the inbox.
const wideFrom = 100

// layout is every size the screens draw into, computed once per window
// size: views ask it for their rectangles instead of doing arithmetic.
type layout struct {
	w, h int
	// status is how many lines the status area takes (1 to statusRows+1:
	// a long message wraps rather than being cut).
	status int
	// body is what lies between the header line and the status line and
	// key bar.
	body rect
	// wide: the detail sits beside the inbox (list | sep | detail).
	wide bool
	list rect
	// detail is where the selected interrupt is shown: beside the list,
	// or the whole body on its own screen.
	detail rect
}

// newLayout lays out a w x h window. listW is the width the inbox list
// wants beside the detail (its widest row); the list gets that, from 40
// columns up to half the window or what leaves the detail 80 columns,
// plus the reviewer's adjustment (< and >).
// Without an interrupt to show (an empty inbox), the list takes the
// whole width.
func newLayout(w, h, listW, adjust, status int) layout {
	status = min(max(status, 1), statusRows(h)+1) // statusLines: the message, then the connection
	l := layout{w: w, h: h, status: status, wide: w >= wideFrom && listW > 0}
	l.body = rect{x: 0, y: 1, w: w, h: max(h-2-status, 1)}
	l.list, l.detail = l.body, l.body
	if l.wide {
		lw := min(max(listW, 40), max(w/2, w-80))
		lw = min(max(lw+adjust, 30), w-40)
		l.list = rect{x: 0, y: 1, w: lw, h: l.body.h}
		// A separator column, then one blank column before the detail.
		l.detail = rect{x: lw + 2, y: 1, w: w - lw - 2, h: l.body.h}
	}
	return l
}

// statusRows is how many lines a status message may take in a window h
// lines high: three, and a quarter of a taller window (six at 24), so that
// what a message says to do next is seldom cut (and never silently).
func statusRows(h int) int { return max(3, h/4) }

// page is a scrolling screen's viewport inside the body: the last line is
// kept for the "more below" marker.
func (l layout) page() rect { return l.body }

// editorFields sizes the fields of an editor in the body: the first (the
// text being written) takes what the others leave; the others (answers to
// questions) get one line each. Each field has a label line above it, and
// two lines stay for an error under the fields.
func (l layout) editorFields(n int) (width int, heights []int) {
	width = max(l.w-2, 10)
	heights = make([]int, n)
	for i := 1; i < n; i++ {
		heights[i] = 1
	}
	// labels (n lines) + the others' lines (n-1) + the error (2 lines).
	heights[0] = max(l.body.h-n-(n-1)-2, 3)
	return width, heights
}
