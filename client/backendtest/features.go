package backendtest

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// StatesAll checks that a backend's Features name every feature its type
// implements: a method added without a line in its capabilities.go would
// otherwise be a feature no front end ever sees. (Wrappers are checked by
// SameFeatures instead: they implement more than they pass on.)
func StatesAll(t testing.TB, b client.Backend) {
	t.Helper()
	for _, p := range Unstated(b) {
		t.Error(p)
	}
}

// Unstated says, for each feature b's type implements and its Features
// leave out, what is wrong.
func Unstated(b client.Backend) []string {
	var out []string
	f := reflect.ValueOf(b.Features())
	bt := reflect.TypeOf(b)
	for i := range f.NumField() {
		field := f.Type().Field(i)
		if bt.Implements(field.Type) && f.Field(i).IsNil() {
			out = append(out, fmt.Sprintf("%T implements client.%s but its Features() leave %s out: state it in its capabilities.go", b, field.Type.Name(), field.Name))
		}
	}
	return out
}

// SameFeatures checks that wrapper offers exactly what inner, the backend
// it wraps, offers: the same features, none dropped and none added, with
// the same answers where a feature is a yes or no (Ender, Batcher).
func SameFeatures(t testing.TB, inner, wrapper client.Backend) {
	t.Helper()
	for _, p := range Differences(inner, wrapper) {
		t.Error(p)
	}
}

// Differences says how wrapper's features differ from inner's.
func Differences(inner, wrapper client.Backend) []string {
	var out []string
	in, w := inner.Features(), wrapper.Features()
	a, b := in.Names(), w.Names()
	for _, n := range a {
		if !slices.Contains(b, n) {
			out = append(out, fmt.Sprintf("%T drops %s, which the %T it wraps offers", wrapper, n, inner))
		}
	}
	for _, n := range b {
		if !slices.Contains(a, n) {
			out = append(out, fmt.Sprintf("%T offers %s, which the %T it wraps does not", wrapper, n, inner))
		}
	}
	if in.Ends() != w.Ends() {
		out = append(out, fmt.Sprintf("%T ends threads: %v; the %T it wraps: %v", wrapper, w.Ends(), inner, in.Ends()))
	}
	if in.Batches() != w.Batches() {
		out = append(out, fmt.Sprintf("%T batches: %v; the %T it wraps: %v", wrapper, w.Batches(), inner, in.Batches()))
	}
	return out
}
