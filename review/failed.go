package review

import (
	"context"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/present"
)

// FailuresRead is how many of the newest failed threads are read in full.
const FailuresRead = 50

// FailedRuns is one reading of the threads whose run failed (the newest
// FailuresRead of them), each with this machine's newest decision there.
type FailedRuns struct {
	Threads []present.FailedThread
	// Total is how many threads failed, beyond those read.
	Total int
	// AuditErr: this machine's audit log could not be read; the threads
	// come without its decisions.
	AuditErr error
}

// ReadFailures reads the failed threads of l and, from j (nil: none), the
// decision this machine sent to each on server: the one reading the CLI
// (hitl list) and the TUI (the failed runs' screen) share.
func ReadFailures(ctx context.Context, l client.FailureLister, j *journal.Journal, server string) (FailedRuns, error) {
	fs, total, err := l.Failures(ctx, FailuresRead)
	if err != nil {
		return FailedRuns{}, err
	}
	out := FailedRuns{Threads: make([]present.FailedThread, len(fs)), Total: total}
	var hist []journal.Entry
	if j != nil && len(fs) > 0 {
		hist, out.AuditErr = j.History()
	}
	for i, f := range fs {
		out.Threads[i] = present.FailedThread{Failure: f, Sent: present.LastSent(hist, server, f.ThreadID)}
	}
	return out, nil
}

// Failures reads the failed threads, each with this machine's decision,
// warning when the audit log cannot be read. ok is false when the backend
// cannot tell.
func (s *Session) Failures(ctx context.Context) (list []present.FailedThread, total int, ok bool, err error) {
	l := s.Features.FailureLister
	if l == nil {
		return nil, 0, false, nil
	}
	runs, err := ReadFailures(ctx, l, s.Journal, s.Backend.Server())
	if err != nil {
		return nil, 0, true, err
	}
	s.JournalWarn(runs.AuditErr, "the failed runs are listed without the decisions this machine sent them")
	return runs.Threads, runs.Total, true, nil
}
