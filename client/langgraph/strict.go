package langgraph

import (
	"context"
	"encoding/json"
	"net/url"
)

// LangGraph 1.2.20's strict resume mode (the run's configurable
// `__pregel_strict_resume`; the Python SDK's `strict_resume`, for servers
// whose /info reports it) refuses a resume that names an interrupt no longer
// waiting: the run fails with UnknownInterruptError before writing anything.
// Observed on langgraph-api 0.16.7, which does not report it: the thread is
// then left in status "error" with that error, its run has none. hitl does
// not ask for strict mode (the failed run would turn a finished or waiting
// thread into a failed one); when a run of its decision was refused so all
// the same, another decision took the interrupt first.

// unknownInterrupt is the exception of a strict refusal.
const unknownInterrupt = "UnknownInterruptError"

// refusedAsStale reports whether run mine, the thread's newest, failed
// because strict resume refused its answer as stale: the Python server
// keeps the failed run's error on the thread.
func (b *Backend) refusedAsStale(ctx context.Context, threadID string, runs []run, mine *run) (bool, error) {
	if !mine.failed() || len(runs) == 0 || runs[len(runs)-1].RunID != mine.RunID || !b.python(ctx) {
		return false, nil
	}
	var t thread
	resp, err := b.Reads.R().SetContext(ctx).Get("/threads/" + url.PathEscape(threadID))
	if err := b.Check(resp, err, "read thread "+threadID, &t); err != nil {
		return false, err
	}
	var e struct {
		Error string `json:"error"`
	}
	return t.Status == "error" && json.Unmarshal(t.Error, &e) == nil && e.Error == unknownInterrupt, nil
}
