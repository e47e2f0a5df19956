package client

import (
	"errors"
	"strings"
)

// SourceDown is the error of a listing that joins several sources (a
// hub's inbox: a LangGraph server's interrupts and publishers' requests)
// when one of them cannot be listed. The interrupts returned beside it are
// the other sources', and are good: a reader shows them, and says that
// this source is down (its status), rather than taking the whole listing
// for failed.
type SourceDown struct {
	// Source names it for the reviewer: "the LangGraph server at http://…".
	Source string
	Err    error
}

func (e *SourceDown) Error() string {
	return e.Source + " cannot be listed (" + e.Detail() + ")" + restListed
}

// Detail is why the source cannot be listed, without what the rest of the
// inbox does (said once, by Error).
func (e *SourceDown) Detail() string {
	if inner, ok := e.Err.(*SourceDown); ok {
		if inner.Source == e.Source {
			return inner.Detail()
		}
		return inner.Source + ": " + inner.Detail()
	}
	return strings.TrimSuffix(e.Err.Error(), restListed)
}

const restListed = "; the rest of the inbox is listed"

// SourceDownOf reads a SourceDown's Error() back (a hub's door sends it as
// a header, cut at its length): the source and its error, rather than one
// wrapped in another. Other text is one source's error, said by fallback.
func SourceDownOf(text, fallback string) *SourceDown {
	text = strings.TrimSuffix(text, restListed)
	if src, rest, ok := strings.Cut(text, " cannot be listed ("); ok && src != "" {
		return &SourceDown{Source: src, Err: errors.New(strings.TrimSuffix(rest, ")"))}
	}
	return &SourceDown{Source: fallback, Err: errors.New(text)}
}

func (e *SourceDown) Unwrap() error { return e.Err }

// DownSource reports whether err says that one source of a listing is down
// (the rest listed), and which.
func DownSource(err error) (*SourceDown, bool) {
	var d *SourceDown
	ok := errors.As(err, &d)
	return d, ok
}
