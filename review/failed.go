package review

import (
	"context"

	"github.com/hitl-sh/hitl/present"
)

// FailuresRead is how many of the newest failed threads are read in full.
const FailuresRead = 50

// Failures reads the failed threads, each with this machine's decision.
// ok is false when the backend cannot tell.
func (s *Session) Failures(ctx context.Context) (list []present.FailedThread, total int, ok bool, err error) {
	l := s.Features.FailureLister
	if l == nil {
		return nil, 0, false, nil
	}
	fs, total, err := l.Failures(ctx, FailuresRead)
	if err != nil {
		return nil, 0, true, err
	}
	hist, err := s.Journal.History()
	s.JournalWarn(err, "the failed runs are listed without the decisions this machine sent them")
	list = make([]present.FailedThread, len(fs))
	for i, f := range fs {
		list[i] = present.FailedThread{Failure: f, Sent: present.LastSent(hist, s.Backend.Server(), f.ThreadID)}
	}
	return list, total, true, nil
}
