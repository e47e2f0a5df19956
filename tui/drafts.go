package tui

import (
	"encoding/json"
	"fmt"

	"github.com/hitl-sh/hitl/client"
)

// draft is the reviewer's work on one interrupt; it survives refreshes,
// failed sends and trips back from the confirm screen.
type draft struct {
	decisions []*client.Decision // per slot; nil: undecided
	slot      int
	argsText  []string   // per slot: the args editor's text
	feedback  []string   // per slot: the feedback editor's text
	answers   [][]string // per slot: answers to the questions
	// confirming: the decisions are another approver's, put here to be
	// confirmed (confirmApproval), not typed by this reviewer.
	confirming bool
}

func newDraft(it *client.Interrupt) *draft {
	n := it.Slots()
	return &draft{decisions: make([]*client.Decision, n), argsText: make([]string, n), feedback: make([]string, n), answers: make([][]string, n)}
}

// touched reports whether anything was decided or typed.
func (d *draft) touched() bool {
	for i := range d.decisions {
		if d.decisions[i] != nil || d.argsText[i] != "" || d.feedback[i] != "" || len(d.answers[i]) > 0 {
			return true
		}
	}
	return false
}

// typed: the draft holds words the reviewer typed (arguments, feedback,
// answers, a decision's message or value), not only keys pressed: what a
// status may say is kept when its interrupt is gone.
func (d *draft) typed() bool {
	for i := range d.decisions {
		if d.argsText[i] != "" || d.feedback[i] != "" || len(d.answers[i]) > 0 {
			return true
		}
		if x := d.decisions[i]; x != nil && !d.confirming && (x.Message != "" || x.Args != nil || x.Value != nil || len(x.Answers) > 0) {
			return true
		}
	}
	return false
}

// complete is the draft's decisions when every slot has one.
func (d *draft) complete() ([]client.Decision, error) {
	ds := make([]client.Decision, len(d.decisions))
	for i, x := range d.decisions {
		if x == nil {
			return nil, fmt.Errorf("action %d has no decision", i+1)
		}
		ds[i] = *x
	}
	return ds, nil
}

// drafts are the reviewer's drafts, by interrupt id.
type drafts map[string]*draft

// of is the draft of it, made on first use (and made anew if the
// interrupt's shape changed under the same id).
func (ds drafts) of(it *client.Interrupt) *draft {
	d := ds[it.ID]
	if d == nil || len(d.decisions) != it.Slots() {
		d = newDraft(it)
		ds[it.ID] = d
	}
	return d
}

// peek is the draft of it, for reading: a new empty one, not kept, when
// there is none (a screen reads drafts; the root changes them).
func (ds drafts) peek(it *client.Interrupt) *draft {
	if d := ds[it.ID]; d != nil && len(d.decisions) == it.Slots() {
		return d
	}
	return newDraft(it)
}

// slot is the action the draft of it points at (0 without a draft).
func (ds drafts) slot(it *client.Interrupt) int {
	if d := ds[it.ID]; d != nil {
		return d.slot
	}
	return 0
}

// savedDraft is a draft as it is kept on disk between runs.
type savedDraft struct {
	Decisions []*client.Decision `json:"decisions"`
	Slot      int                `json:"slot"`
	ArgsText  []string           `json:"args_text"`
	Feedback  []string           `json:"feedback"`
	Answers   [][]string         `json:"answers"`
}

// encode is the drafts with typed work, for SaveDrafts (stable: same
// drafts, same bytes).
func (ds drafts) encode() []byte {
	out := map[string]savedDraft{}
	for id, d := range ds {
		if d.touched() {
			out[id] = savedDraft{Decisions: d.decisions, Slot: d.slot, ArgsText: d.argsText, Feedback: d.feedback, Answers: d.answers}
		}
	}
	b, _ := json.Marshal(out) // maps marshal with sorted keys
	return b
}

// decodeDrafts reads what encode wrote; a draft whose slots do not match
// its interrupt any more is made anew when the interrupt shows (drafts.of).
func decodeDrafts(b []byte) drafts {
	var in map[string]savedDraft
	ds := drafts{}
	if json.Unmarshal(b, &in) != nil {
		return ds
	}
	for id, s := range in {
		n := len(s.Decisions)
		if n == 0 || len(s.ArgsText) != n || len(s.Feedback) != n || len(s.Answers) != n {
			continue
		}
		ds[id] = &draft{decisions: s.Decisions, slot: min(max(s.Slot, 0), n-1), argsText: s.ArgsText, feedback: s.Feedback, answers: s.Answers}
	}
	return ds
}
