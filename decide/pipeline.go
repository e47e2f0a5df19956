package decide

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
)

// Draft is the decisions for one interrupt, ready to encode.
type Draft struct {
	Interrupt client.Interrupt
	Decisions []client.Decision
	// Resume, when set, is sent as it is (hitl resume --value): no decision
	// rules apply.
	Resume *client.Resume
}

// Pipeline sends decisions to one backend and records them in one journal.
type Pipeline struct {
	Backend  client.Backend
	Journal  *journal.Journal // nil: nothing is recorded (tests)
	Reviewer string
	Encoding client.EncodeOptions
	// Settle is how long Send keeps looking for a submission whose answer
	// was lost before it concludes the server never got it (default 2s).
	Settle time.Duration
	// Now is the clock (tests replace it).
	Now func() time.Time
}

// DraftError is Prepare's refusal of one draft: Draft is its index, Err
// what was refused (errors.As reaches it: the refusal's own type).
type DraftError struct {
	Draft int
	Err   error
}

func (e *DraftError) Error() string { return e.Err.Error() }
func (e *DraftError) Unwrap() error { return e.Err }

// Prepare encodes drafts into submissions: one per thread (one per
// interrupt where the backend takes one answer at a time), each with a new
// decision id. It refuses, sending nothing, what Encode refuses, with the
// draft refused (DraftError).
func (p *Pipeline) Prepare(drafts []Draft) ([]*client.Submission, error) {
	feat := p.Backend.Features()
	batches := feat.Batches()
	var out []*client.Submission
	byThread := map[string]*client.Submission{}
	for i, d := range drafts {
		item := client.Item{Interrupt: d.Interrupt, Decisions: d.Decisions}
		end, err := client.Ends(d.Decisions)
		if err != nil {
			return nil, &DraftError{i, err}
		}
		if end != nil {
			// Ended, not resumed: nothing is encoded, the backend ends the
			// thread's work; alone in its submission.
			if !feat.Ends() {
				return nil, &DraftError{i, &client.RefusedError{Slot: -1, Reason: end.Words() + ": this backend cannot end a thread's work (the LangGraph backend can); reject or answer it instead"}}
			}
			item.Resume = client.Resume{End: end}
			out = append(out, &client.Submission{DecisionID: NewID(), Reviewer: p.Reviewer, ThreadID: d.Interrupt.ThreadID, Items: []client.Item{item}})
			continue
		}
		if d.Resume != nil {
			item.Resume = *d.Resume
		} else {
			opts := p.Encoding
			opts.Reviewer = p.Reviewer
			r, err := client.Encode(&d.Interrupt.Payload, d.Decisions, opts)
			if err != nil {
				return nil, &DraftError{i, err}
			}
			item.Resume = r
		}
		s := byThread[d.Interrupt.ThreadID]
		if s == nil || !batches || item.Resume.Continue || s.Items[0].Resume.Continue || s.Items[0].Resume.End != nil {
			s = &client.Submission{DecisionID: NewID(), Reviewer: p.Reviewer, ThreadID: d.Interrupt.ThreadID}
			out = append(out, s)
			byThread[d.Interrupt.ThreadID] = s
		}
		s.Items = append(s.Items, item)
	}
	return out, nil
}

// NewID is a new decision id: 32 random hex characters.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (p *Pipeline) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// Send sends one submission and reports, verified against the server, what
// became of it. It never sends twice: a resume whose answer was lost is
// looked for on the server, never sent again.
func (p *Pipeline) Send(ctx context.Context, s *client.Submission) *Result {
	res := &Result{Submission: s, Reviewer: p.reviewerOf(s)}
	its := make([]client.Interrupt, len(s.Items))
	for i, it := range s.Items {
		its[i] = it.Interrupt
	}

	// 1. Is it still waiting? Answered, gone and busy are refused here,
	//    with nothing written ahead: nothing leaves.
	standing, err := p.Backend.Standing(ctx, its)
	if err != nil {
		return res.fail(NotSent, fmt.Errorf("could not check that the interrupt still waits: %w", err))
	}
	var answered []client.Standing
	busy := false
	for _, st := range standing {
		switch st.Presence {
		case client.Answered, client.Gone:
			answered = append(answered, st)
		case client.ThreadBusy:
			busy = true
		}
	}
	switch {
	case len(answered) > 0:
		res.Kind = HandledElsewhere
		for _, st := range answered {
			res.Items = append(res.Items, ItemResult{ID: st.ID, Kind: HandledElsewhere, Winner: st.By})
		}
		p.record(s, res, journal.HandledElsewhere, false)
		p.markAnswered(res)
		return res
	case busy:
		res.Kind = Busy
		p.record(s, res, journal.Busy, false)
		return res
	}

	// 2. Write ahead: the intent is on disk before anything is sent.
	if err := p.intend(s); err != nil {
		return res.fail(NotSent, fmt.Errorf("could not write the audit log, so nothing was sent: %w", err))
	}

	// 3. Send once. From here on an outcome line is written whatever
	//    happens, also when the reviewer quits (ctx ends): the steps that
	//    record what happened run on a short context of their own.
	res.sentAt = time.Now()
	rc, err := p.Backend.Resume(ctx, s)
	res.left = true
	if rc.Reviewer != "" {
		// The server said who it recorded the decision as (a hub: the
		// token's reviewer): that is who the audit log names.
		res.Reviewer = rc.Reviewer
	}
	after, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	switch {
	case errors.Is(err, client.ErrAlreadyHandled):
		res.Kind = HandledElsewhere
		for _, it := range s.Items {
			res.Items = append(res.Items, ItemResult{ID: it.Interrupt.ID, Kind: HandledElsewhere})
		}
		p.record(s, res, journal.HandledElsewhere, true)
		p.markAnswered(res)
		return res
	case errors.Is(err, client.ErrBusy):
		// Refused: is another run answering this very interrupt, or
		// another branch of the thread?
		if st, serr := p.Backend.Standing(after, its); serr == nil {
			for _, x := range st {
				if x.Presence == client.Answered {
					res.Items = append(res.Items, ItemResult{ID: x.ID, Kind: HandledElsewhere, Winner: x.By})
				}
			}
		}
		// The server refused the run: nothing of this decision was taken.
		res.Kind, res.left = Busy, false
		outcome := journal.Busy
		if len(res.Items) > 0 {
			res.Kind, outcome = HandledElsewhere, journal.HandledElsewhere
			p.markAnswered(res)
		}
		p.record(s, res, outcome, true)
		return res
	case errors.Is(err, client.ErrMaybeSent):
		// The answer was lost: find out from the server.
		verdicts, verr := p.settle(after, s)
		if verr != nil {
			res.fail(Unknown, fmt.Errorf("%w; then hitl could not read the server to find out whether it took the decision: %v", err, verr))
			p.record(s, res, journal.Unknown, true)
			return res
		}
		if allNotTaken(verdicts) {
			res.fail(NotSent, fmt.Errorf("%w; the server has no trace of it, so it was not sent", err))
			p.record(s, res, journal.NotSent, true)
			return res
		}
		rc = client.Receipt{RunID: verdicts[0].RunID}
		return p.conclude(ctx, after, s, rc, verdicts, res)
	case err != nil:
		res.fail(NotSent, err)
		outcome := journal.NotSent
		switch {
		case errors.Is(err, client.ErrAwaitingApproval):
			res.fail(ApprovalRecorded, err)
			outcome = journal.ApprovalRecorded
		case errors.Is(err, client.ErrRefused):
			res.fail(Refused, err)
			outcome = journal.Refused
		}
		p.record(s, res, outcome, true)
		return res
	}

	// 4. Which decision took effect?
	verdicts, err := p.Backend.Verify(after, s, rc)
	if err != nil {
		res.Run.RunID = rc.RunID
		res.fail(Unknown, fmt.Errorf("the server took the request (run %s), but hitl could not read back whether this decision took effect: %w", orDash(rc.RunID), err))
		p.record(s, res, journal.Unknown, true)
		return res
	}
	if allLost(verdicts) {
		return p.lost(s, rc, res)
	}
	return p.conclude(ctx, after, s, rc, verdicts, res)
}

// settle looks for a submission whose answer was lost, a few times over
// Settle, while the server shows no trace of it (the request may still be
// on its way).
func (p *Pipeline) settle(ctx context.Context, s *client.Submission) ([]client.Verdict, error) {
	wait := p.Settle
	if wait <= 0 {
		wait = 2 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		v, err := p.Backend.Verify(ctx, s, client.Receipt{})
		if err != nil || !allNotTaken(v) || time.Now().After(deadline) {
			return v, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait / 4):
		}
	}
}

// ends reports whether the submission ends its thread's work (a dismiss,
// a reject and stop).
func ends(s *client.Submission) bool {
	for _, it := range s.Items {
		if it.Resume.End != nil {
			return true
		}
	}
	return false
}

// conclude follows the run of a submission the server took, verifies again
// once it ended, and records the outcome.
func (p *Pipeline) conclude(ctx, after context.Context, s *client.Submission, rc client.Receipt, verdicts []client.Verdict, res *Result) *Result {
	mine := false
	for _, v := range verdicts {
		mine = mine || v.Took == client.Mine || v.Took == client.InFlight || v.Took == client.Unconfirmed
	}
	if mine {
		follow := ctx
		if ctx.Err() != nil {
			follow = after
		}
		res.Run = p.Backend.Follow(follow, s, rc)
		if ends(s) {
			// The thread's work ended: the agent was not asked again, so
			// the thread's last message (the backend's reply) is one it
			// wrote before the decision, not an answer to it.
			res.Run.Reply = ""
		}
		if len(res.Run.Pending) > 0 && p.Journal != nil {
			res.waitedBefore = p.Journal.SeenBefore(res.Run.Pending, res.sentAt)
		}
		if res.Run.Status != client.Running {
			// The run ended: its checkpoints now say for certain.
			if again, err := p.Backend.Verify(after, s, rc); err == nil {
				verdicts = again
			}
		}
	}
	res.Run.RunID = rc.RunID
	res.reasonInConv = rc.ReasonInConversation
	if !rc.Acknowledged && len(s.Items) == 1 {
		// The answer was lost: the shape says whether tool calls got the
		// reason (the LangGraph backend writes it for the middleware's).
		it := s.Items[0].Interrupt
		res.reasonInConv = it.Payload.Schema == client.SchemaMiddleware && len(it.Payload.Actions) > 0
	}
	res.Kind = HandledElsewhere
	for _, v := range verdicts {
		k := HandledElsewhere
		if v.Took == client.Mine || v.Took == client.InFlight {
			k, res.Kind = Sent, Sent
		}
		if v.Took == client.Unconfirmed {
			k = Unconfirmed
			if res.Kind != Sent {
				res.Kind = Unconfirmed
			}
		}
		res.Items = append(res.Items, ItemResult{ID: v.ID, Kind: k, Winner: v.Winner})
	}
	outcome := journal.HandledElsewhere
	switch res.Kind {
	case Sent:
		outcome = journal.OfRun(res.Run.Status)
	case Unconfirmed:
		outcome = journal.Unconfirmed
	}
	p.record(s, res, outcome, true)
	p.markAnswered(res)
	return res
}

// lost records a submission whose run the server lost: it did not take
// effect, and its interrupts, still waiting, are pending again on this
// machine (an earlier outcome may have hidden them).
func (p *Pipeline) lost(s *client.Submission, rc client.Receipt, res *Result) *Result {
	res.Kind = Lost
	res.Run = client.Outcome{RunID: rc.RunID}
	res.cause = fmt.Errorf("the server lost run %s: no run carries this decision and the interrupt still waits", orDash(rc.RunID))
	for _, it := range s.Items {
		res.Items = append(res.Items, ItemResult{ID: it.Interrupt.ID, Kind: Lost})
	}
	p.record(s, res, journal.Lost, true)
	if p.Journal != nil {
		for _, it := range s.Items {
			if err := p.Journal.Forget(it.Interrupt.ID); err != nil {
				res.Warnings = append(res.Warnings, "could not make it pending again: "+err.Error())
			}
		}
	}
	return res
}

func allLost(vs []client.Verdict) bool {
	for _, v := range vs {
		if v.Took != client.Lost {
			return false
		}
	}
	return len(vs) > 0
}

func allNotTaken(vs []client.Verdict) bool {
	for _, v := range vs {
		if v.Took != client.NotTaken {
			return false
		}
	}
	return len(vs) > 0
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// entries are the audit lines of a submission, one per interrupt.
func (p *Pipeline) entries(s *client.Submission) []journal.Entry {
	out := make([]journal.Entry, len(s.Items))
	for i, it := range s.Items {
		resume, decisions := it.Resume.Value, it.Decisions
		if it.Resume.Continue {
			// A continue: no value, and no decision (the approve key that
			// gave it is not what was done).
			resume, decisions = nil, nil
		}
		// The interrupt's own source: in a hub's merged inbox an agent's
		// request comes from the hub's door, not from the LangGraph
		// server the backend names (every single backend names itself).
		server := it.Interrupt.Server
		if server == "" {
			server = p.Backend.Server()
		}
		out[i] = journal.Entry{DecisionID: s.DecisionID, Time: p.now().UTC(), Reviewer: p.reviewerOf(s), Server: server,
			ThreadID: s.ThreadID, InterruptID: it.Interrupt.ID, Schema: it.Interrupt.Schema, Title: it.Interrupt.Title,
			Decisions: decisions, Resume: resume, GraphID: it.Interrupt.GraphID}
		for _, a := range it.Interrupt.Actions {
			out[i].Proposed = append(out[i].Proposed, journal.Call{Name: a.Name, Args: a.Args})
		}
	}
	return out
}

// reviewerOf is who s is decided by, as far as hitl knows before the
// server answers: its reviewer, or "" where the server names reviewers
// itself (a hub takes its token's; client.Features.NamesReviewer): a
// local name that may not be who decided is not claimed.
func (p *Pipeline) reviewerOf(s *client.Submission) string {
	if p.Backend.Features().NamesReviewer() {
		return ""
	}
	return s.Reviewer
}

func (p *Pipeline) intend(s *client.Submission) error {
	if p.Journal == nil {
		return nil
	}
	return p.Journal.Intend(p.entries(s))
}

// record writes the outcome of a submission: as outcome lines after its
// intent, or (sent false: refused before anything left) as whole entries.
func (p *Pipeline) record(s *client.Submission, res *Result, outcome journal.Outcome, sent bool) {
	if p.Journal == nil {
		return
	}
	es := p.entries(s)
	for i := range es {
		es[i].Reviewer = res.Reviewer
		es[i].Outcome = outcome
		es[i].RunID = res.Run.RunID
		if res.cause != nil {
			es[i].Error = res.cause.Error()
		} else if res.Run.Status == client.Failed {
			es[i].Error = res.Run.Error
		}
		for _, ir := range res.Items {
			if ir.ID != es[i].InterruptID {
				continue
			}
			es[i].Winner = ir.Winner
			if ir.Kind == HandledElsewhere {
				es[i].Outcome = journal.HandledElsewhere
			}
		}
	}
	var err error
	if sent {
		err = p.Journal.Resolve(es)
	} else {
		for _, e := range es {
			if werr := p.Journal.Record(e); werr != nil {
				err = werr
			}
		}
	}
	if err != nil {
		res.Warnings = append(res.Warnings, "could not write the audit log: "+err.Error())
	}
}

// markAnswered records in the journal the interrupts the server has an
// answer for: handled here where this decision took effect, answered
// elsewhere where another one did (both leave the listing; only the first
// is ever told as this machine's).
func (p *Pipeline) markAnswered(res *Result) {
	if p.Journal == nil {
		return
	}
	var mine, others []string
	for _, it := range res.Items {
		switch it.Kind {
		case Sent, Unconfirmed:
			// Unconfirmed: this machine sent it and the server has an
			// answer, but cannot say whose; the audit log says so
			// (sent-unconfirmed), and show points there.
			mine = append(mine, it.ID)
		case HandledElsewhere:
			others = append(others, it.ID)
		}
	}
	if len(mine) > 0 {
		_ = p.Journal.MarkHandled(mine...)
	}
	if len(others) > 0 {
		_ = p.Journal.MarkElsewhere(others...)
	}
}
