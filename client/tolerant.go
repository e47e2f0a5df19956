package client

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Reading what a server sends, one item at a time: the one tolerant
// decoder every backend uses.
//
// encoding/json refuses a whole document when one value in it nests past
// 10,000 levels or is malformed, and a server that sends one poisoned item
// must not hide every other. So a backend takes a list apart with List and
// an item apart with Fields (both built on Elements and Members, which
// read JSON's structure without a limit on its depth). An item that cannot
// be read is one unreadable interrupt (Unreadable, its problem worded by
// CannotRead) named by UnreadableID when it has no id of its own; the
// others are read as usual.

// List reads the JSON array b one element at a time, in order: item makes
// each element into a T, and ok false leaves it out (an entry that names
// nothing a backend could use). item reads what it can of an element and
// marks what it cannot: one element never fails the list. List fails only
// when b is not a JSON array.
func List[T any](b []byte, item func(json.RawMessage) (T, bool)) ([]T, error) {
	elems, err := Elements(b)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(elems))
	for _, e := range elems {
		if v, ok := item(e); ok {
			out = append(out, v)
		}
	}
	return out, nil
}

// Problems are what could not be read of one item, each "member: why".
type Problems []string

// String joins them with "; ".
func (p Problems) String() string { return strings.Join(p, "; ") }

// Err is nil when nothing was wrong, else the problems as one error (for
// an answer that is one item: what cannot be read of it fails it).
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return errors.New(p.String())
}

// Fields reads the JSON object b one member at a time, in order, calling
// read with each: read decodes the members it knows (Into) and returns an
// error for a value it cannot read. Fields returns what could not be read:
// b itself when it is not an object, or each member read refused, as
// "key: why"; nothing when the item was read whole.
func Fields(b []byte, read func(key string, value json.RawMessage) error) Problems {
	ms, err := Members(b)
	if err != nil {
		return Problems{err.Error()}
	}
	var p Problems
	for _, m := range ms {
		if err := read(m.Key, m.Value); err != nil {
			p = append(p, m.Key+": "+err.Error())
		}
	}
	return p
}

// Into decodes one value into v, as json.Unmarshal does, with an error
// that reads as a reason ("cannot unmarshal number into … string", without
// encoding/json's "json: ").
func Into(value json.RawMessage, v any) error {
	if err := json.Unmarshal(value, v); err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// CannotRead words the problem of an item that cannot be read, what being
// the item ("a request", "a thread t-1"): "a request that cannot be read
// (request_id: …; data: …)".
func CannotRead(what string, p Problems) string {
	return fmt.Sprintf("%s that cannot be read (%s)", what, p)
}

// UnreadableID names an item that cannot be read and carries no id of its
// own, by what it is: "unreadable-" and the first 16 hex digits of the
// SHA-256 of b (the item's bytes, or what names it). The same bytes give
// the same name at every read, so the item stays one row, selected where
// it was; two items give two names.
//
// SHA-256 rather than a faster hash such as xxh3 (which LangGraph uses for
// the ids of its own interrupts, and client/langgraph for those): the
// bytes are the server's, and with a hash a server can collide on purpose
// an unreadable item could take the name of another interrupt, hiding it
// or wearing its handled state. Unreadable items are few; the cost is
// nothing.
func UnreadableID(b []byte) string {
	sum := sha256.Sum256(b)
	return "unreadable-" + hex.EncodeToString(sum[:8])
}
