package tui

import (
	"fmt"
	"strings"
)

// A journal problem is a write or read of the state folder that failed:
// the reviewer is told at once (the status line) and, until it works
// again, the status area says so. None is swallowed: drafts are the
// reviewer's typed work, sightings tell "answered elsewhere" from "never
// existed", the audit log holds the decisions of unknown outcome.
type journalProblemKind int

const (
	problemDrafts journalProblemKind = iota
	problemSightings
	problemAudit
)

// short is what the status area keeps saying while the problem lasts.
func (k journalProblemKind) short() string {
	switch k {
	case problemDrafts:
		return "drafts not saved"
	case problemSightings:
		return "sightings not recorded"
	}
	return "audit log unreadable"
}

// sentence tells the reviewer what failed, what it means and what to do.
func (k journalProblemKind) sentence(err error) string {
	fix := "free some space or fix the state folder's permissions (hitl config show names the folder)."
	switch k {
	case problemDrafts:
		return fmt.Sprintf("Your drafts could not be saved: %v. They are still here and hitl tries again each second: %s", err, fix)
	case problemSightings:
		return fmt.Sprintf("hitl could not record the interrupts it lists: %v. One answered elsewhere may be reported as unknown: %s", err, fix)
	}
	return fmt.Sprintf("hitl could not read its audit log: %v. Decisions of unknown outcome and those sent to failed runs are not shown: %s", err, fix)
}

// journalProblem records the result of one journal operation: a new or
// different failure is said on the status line; a success ends it.
func (m *Model) journalProblem(k journalProblemKind, err error) {
	if err == nil {
		delete(m.journalErrs, k)
		return
	}
	if m.journalErrs == nil {
		m.journalErrs = map[journalProblemKind]string{}
	}
	if m.journalErrs[k] != err.Error() {
		m.setStatus(k.sentence(err), false)
	}
	m.journalErrs[k] = err.Error()
}

// journalMark is the status area's reminder of the problems that last.
func (m *Model) journalMark() string {
	var out []string
	for _, k := range []journalProblemKind{problemDrafts, problemSightings, problemAudit} {
		if _, ok := m.journalErrs[k]; ok {
			out = append(out, k.short())
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "✗ " + strings.Join(out, ", ")
}
