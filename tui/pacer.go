package tui

import (
	"reflect"
	"time"
	"unsafe"

	tea "charm.land/bubbletea/v2"
)

// Bubble Tea writes frames from a ticker that runs at the frame rate for the
// program's whole life, whether or not a frame changed (upstream has open
// pull requests to make it run only while there is a frame to draw:
// charmbracelet/bubbletea#1776, #1796). Left alone, an idle reviewer wakes
// 60 times a second to find nothing to write, which was most of its CPU.
//
// The pacer slows that ticker down to once every five seconds while nothing
// is drawn, and brings it back to the full rate as soon as Update draws a
// frame: a key's effect is on screen within one frame (16 ms), and an idle
// reviewer wakes once every five seconds for the renderer. The ticker also
// writes what the program sends the terminal outside frames (tea.Raw: the
// notifications); those go through written, which brings the full rate
// back as a frame does. Slowed, not stopped: should anything else reach the
// terminal that way, it is written within five seconds anyway.
//
// The ticker is a private field of tea.Program, reached by reflection. When
// a version of Bubble Tea has no such field, the pacer does nothing and the
// program runs at fallbackFPS instead (TestPacerReachesTheTicker fails
// first, at the upgrade).

const (
	// activeFPS is the frame rate while frames change (Bubble Tea's own).
	activeFPS = 60
	// fallbackFPS is the frame rate when the ticker cannot be reached: a
	// compromise between a key's latency (50 ms) and wake-ups.
	fallbackFPS = 20
	// restEvery is how often the renderer looks for a frame while none is
	// drawn (each look is a wake-up of an idle process).
	restEvery = 5 * time.Second
	// restAfter is how long after the last frame drawn the renderer rests:
	// long enough for the ticker to have written it several times over.
	restAfter = 100 * time.Millisecond
	// flushEvery is how soon a frame the clock changed is written while
	// the screen rests: one tick of the ticker, within the rest check.
	flushEvery = restAfter / 2
)

// tickerField is tea.Program's ticker, if it has one of the expected type.
var tickerField, tickerFound = func() (reflect.StructField, bool) {
	f, ok := reflect.TypeOf(tea.Program{}).FieldByName("ticker")
	return f, ok && f.Type == reflect.TypeOf((*time.Ticker)(nil))
}()

// frameRate is the rate Run asks Bubble Tea for.
func frameRate() int {
	if tickerFound {
		return activeFPS
	}
	return fallbackFPS
}

// pacer paces the renderer's ticker; its zero value does nothing.
type pacer struct {
	program *tea.Program
	ticker  *time.Ticker
	active  bool // ticking at the full rate
	drawn   int  // frames drawn
	resting bool // a rest check is in flight
	// flushing: resting, the ticker runs at flushEvery until the clock's
	// frame is written (drewByClock).
	flushing bool
}

// restMsg checks whether frames stopped coming.
type restMsg struct{ drawn int }

// wroteMsg follows bytes sent to the terminal outside a frame.
type wroteMsg struct{}

// written sends c's bytes to the terminal (a tea.Raw) and then has them
// written at once, as a frame would be: Bubble Tea writes them at its
// ticker's next tick, and a resting ticker ticks seldom.
func (p *pacer) written(c tea.Cmd) tea.Cmd {
	if c == nil {
		return nil
	}
	return tea.Sequence(c, func() tea.Msg { return wroteMsg{} })
}

// reach finds the program's ticker (Update runs on the goroutine that
// started the renderer, after it did).
func (p *pacer) reach() *time.Ticker {
	if p.ticker == nil && p.program != nil && tickerFound {
		v := reflect.ValueOf(p.program).Elem().FieldByIndex(tickerField.Index)
		p.ticker = *(**time.Ticker)(unsafe.Pointer(v.UnsafeAddr()))
	}
	return p.ticker
}

// drew: a frame was drawn. The ticker runs at the full rate (unless it does
// already: resetting it at each message would put a frame off while
// messages keep coming), and a rest check follows.
func (p *pacer) drew() tea.Cmd {
	t := p.reach()
	if t == nil {
		return nil
	}
	p.drawn++
	p.flushing = false
	if !p.active {
		t.Reset(time.Second / activeFPS)
		p.active = true
	}
	return p.checkRest()
}

// drewByClock: a resting screen's frame changed by itself (an age, a
// deadline, "updated just now" ending). Nobody is typing, so it is
// written by one tick of the ticker soon (flushEvery) rather than at the
// full rate: with a thousand interrupts raised at different seconds an age
// changes on screen every few seconds, and each such frame brought the
// full rate back for a while.
func (p *pacer) drewByClock() tea.Cmd {
	if p.active {
		return p.drew() // frames are coming anyway
	}
	t := p.reach()
	if t == nil {
		return nil
	}
	p.drawn++
	if !p.flushing {
		t.Reset(flushEvery)
		p.flushing = true
	}
	return p.checkRest()
}

func (p *pacer) checkRest() tea.Cmd {
	if p.resting {
		return nil
	}
	p.resting = true
	drawn := p.drawn
	return after(restAfter, func(time.Time) tea.Msg { return restMsg{drawn: drawn} })
}

// onRest slows the ticker down when no frame was drawn since the check
// was scheduled, or checks again later.
func (p *pacer) onRest(msg restMsg) tea.Cmd {
	p.resting = false
	if p.drawn != msg.drawn {
		return p.checkRest()
	}
	if t := p.reach(); t != nil && p.flushing {
		t.Reset(restEvery) // the clock's frame is written
		p.flushing = false
	}
	if t := p.reach(); t != nil && p.active {
		t.Reset(restEvery)
		p.active = false
	}
	return nil
}
