package client

import (
	"context"
	"sort"
	"time"
)

// Team presence: a reviewer who holds a draft for an interrupt says so on
// the server (a claim), so that other reviewers see it before they race.
// Claims are advice, never locks: nothing refuses a decision because of one.

// Claim says that a reviewer holds a draft for an interrupt: typed
// something, recorded a decision, or has its editor open.
type Claim struct {
	Reviewer string `json:"reviewer"`
	// Client names the reviewer's hitl (its state directory): a reviewer's
	// own claims are told apart from others' by it, not by a name two
	// people may share.
	Client string `json:"client,omitempty"`
	// Since is when the reviewer started on the draft; Expires is when
	// the claim stops counting unless it is refreshed (a reviewer who
	// vanished without clearing it). Both are the reviewer's clock.
	Since   time.Time `json:"since"`
	Expires time.Time `json:"expires"`
}

// Active reports whether the claim counts at now.
func (c Claim) Active(now time.Time) bool {
	return c.Reviewer != "" && now.Before(c.Expires)
}

// ClaimTTL is how long a claim counts without a refresh, and ClaimRefresh
// how often a reviewer holding a draft refreshes it.
const (
	ClaimTTL     = 5 * time.Minute
	ClaimRefresh = time.Minute
)

// Claimer is a backend that can record claims where every reviewer of the
// server reads them (LangGraph: the thread's metadata). A backend without
// it has no claims: reviewers find each other when one loses a race.
type Claimer interface {
	// Claim records (or refreshes) c on the interrupt.
	Claim(ctx context.Context, it Interrupt, c Claim) error
	// Release clears c's claim on the interrupt (sent, or the draft was
	// discarded).
	Release(ctx context.Context, it Interrupt, c Claim) error
}

// Others are the claims on it that count at now and are not client's
// own, longest held first.
func (it *Interrupt) Others(client string, now time.Time) []Claim {
	return it.claims(now, func(c Claim) bool { return !c.By(client) })
}

// Mine are the claims on it that count at now and are client's own (the
// reviewer's hitl with this state directory, on this machine), longest
// held first.
func (it *Interrupt) Mine(client string, now time.Time) []Claim {
	return it.claims(now, func(c Claim) bool { return c.By(client) })
}

// By reports whether the claim is client's own: the one rule that tells a
// reviewer's own claims from others'. A claim that names no client is
// nobody's own.
func (c Claim) By(client string) bool {
	return c.Client != "" && c.Client == client
}

func (it *Interrupt) claims(now time.Time, keep func(Claim) bool) []Claim {
	var out []Claim
	for _, c := range it.Claims {
		if c.Active(now) && keep(c) {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Since.Before(out[j].Since) })
	return out
}
