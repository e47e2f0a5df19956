package faultproxy

import (
	"fmt"
	"time"
)

type kind uint8

const (
	pass kind = iota
	resetBeforeUpstream
	resetAfterUpstream
	badGatewayAfterUpstream
	truncateAfterUpstream
	stall
)

// Fault is what the proxy does to a request a Rule matched. The zero Fault
// does nothing: the request is proxied as it is. Build faults with the
// functions below; a Fault is comparable, so a test can check which one
// fired with Entry.Fault == faultproxy.ResetAfterUpstream().
type Fault struct {
	kind    kind
	delay   time.Duration // waited before anything else
	keep    int           // truncateAfterUpstream: body bytes sent; <= 0: half
	forward bool          // stall: the request is forwarded first
	hold    time.Duration // stall: how long; 0: until Close
}

// ResetBeforeUpstream resets the client's connection (TCP RST, no response
// bytes) once its request has been read. The request never reaches the
// upstream.
func ResetBeforeUpstream() Fault { return Fault{kind: resetBeforeUpstream} }

// ResetAfterUpstream forwards the request, reads the upstream's whole
// response (the server has acted), then resets the client's connection
// without sending it a single response byte.
//
// Like every fault "after upstream", it waits for the end of the upstream's
// body: on an event stream, for the stream to end.
func ResetAfterUpstream() Fault { return Fault{kind: resetAfterUpstream} }

// BadGatewayAfterUpstream forwards the request, reads the upstream's whole
// response (the server has acted), then answers the client 502 Bad Gateway
// with a short text body, as a broken load balancer would.
func BadGatewayAfterUpstream() Fault { return Fault{kind: badGatewayAfterUpstream} }

// TruncateAfterUpstream forwards the request and reads the upstream's whole
// response, then sends the client the upstream's status and headers with a
// Content-Length of the whole body, but only the body's first keep bytes
// (keep <= 0: half of it, rounded down), and closes the connection. A Go
// client reads those bytes and then gets io.ErrUnexpectedEOF.
//
// keep is capped so that at least one byte is missing. An empty body (or a
// response that has none, to HEAD or with 204 or 304) cannot be cut: the
// client then gets a complete response before the close.
func TruncateAfterUpstream(keep int) Fault {
	return Fault{kind: truncateAfterUpstream, keep: keep}
}

// Stall holds the client's connection open without answering, for d or, if d
// is 0, until the proxy is closed; then the connection is reset. The request
// never reaches the upstream. A client that gives up first simply goes away.
func Stall(d time.Duration) Fault { return Fault{kind: stall, hold: d} }

// StallForwarded is Stall, except that the request is forwarded to the
// upstream (which answers into the void: the exchange runs to its end,
// whatever the client does, until the proxy is closed). This is a stalled
// GET .../join: the server got it, the client never hears back.
func StallForwarded(d time.Duration) Fault { return Fault{kind: stall, hold: d, forward: true} }

// Delay waits d, then proxies the request normally.
func Delay(d time.Duration) Fault { return Fault{delay: d} }

// WithDelay returns f preceded by a wait of d: before forwarding, or before
// the reset of ResetBeforeUpstream, or before a Stall begins.
func (f Fault) WithDelay(d time.Duration) Fault {
	f.delay = d
	return f
}

// IsZero reports whether f does nothing at all (no fault fired).
func (f Fault) IsZero() bool { return f == Fault{} }

// String names the fault as it was built: "ResetAfterUpstream",
// "TruncateAfterUpstream(10)", "Delay(1s)", "StallForwarded(0s)+Delay(2s)".
// The zero Fault is "none".
func (f Fault) String() string {
	var s string
	switch f.kind {
	case pass:
		if f.delay == 0 {
			return "none"
		}
		return fmt.Sprintf("Delay(%v)", f.delay)
	case resetBeforeUpstream:
		s = "ResetBeforeUpstream"
	case resetAfterUpstream:
		s = "ResetAfterUpstream"
	case badGatewayAfterUpstream:
		s = "BadGatewayAfterUpstream"
	case truncateAfterUpstream:
		s = fmt.Sprintf("TruncateAfterUpstream(%d)", f.keep)
	case stall:
		name := "Stall"
		if f.forward {
			name = "StallForwarded"
		}
		s = fmt.Sprintf("%s(%v)", name, f.hold)
	default:
		s = fmt.Sprintf("Fault(%d)", f.kind)
	}
	if f.delay > 0 {
		s += fmt.Sprintf("+Delay(%v)", f.delay)
	}
	return s
}
