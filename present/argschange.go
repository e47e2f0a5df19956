package present

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/hitl-sh/hitl/diff"
)

// canonicalJSON is raw JSON indented for a diff, keys sorted, every byte
// inert.
func canonicalJSON(raw json.RawMessage) (string, error) {
	c, err := diff.Canonical(raw)
	if err != nil {
		return "", err
	}
	return IndentJSON([]byte(c), JSONOptions{})
}

// ArgsChange writes the change an edit makes to a tool call's arguments
// (name, of interrupt id) as a line diff of the proposed and the sent
// ones, keys sorted on both sides: a key the edit kept is not shown as
// removed and added again because it was written in another place (or an
// A2A agent's Struct came in an order of its own). A key dropped is said
// with how to keep it (hitl edit --set). Arguments that are not JSON
// print nothing.
func ArgsChange(w io.Writer, name, id string, proposed, sent json.RawMessage) {
	before, err1 := canonicalJSON(proposed)
	after, err2 := canonicalJSON(sent)
	if err1 != nil || err2 != nil {
		return
	}
	fmt.Fprintf(w, "edit of %s (%s), your arguments (- proposed, + yours):\n", line(name), line(ShortID(id)))
	for _, l := range diff.Lines(before, after) {
		mark := "  "
		switch l.Op {
		case diff.Delete:
			mark = "- "
		case diff.Insert:
			mark = "+ "
		}
		fmt.Fprintln(w, mark+l.Text)
	}
	dropped := false
	if ch, err := diff.Structural(proposed, sent); err == nil {
		for _, c := range ch {
			dropped = dropped || c.Kind == diff.Removed
		}
	}
	if dropped {
		fmt.Fprintln(w, "note: keys of the proposed arguments are dropped (--args replaces the whole object; --set KEY=VALUE changes one and keeps the others)")
	}
}
