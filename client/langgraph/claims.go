package langgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// Claims live in the thread's metadata, one key per interrupt and
// reviewer's hitl (hitl_claim_<interrupt id>_<client id>), so that two
// reviewers claiming one interrupt, or two branches of one thread, never
// overwrite each other: PATCH /threads/{id} with {"metadata": {...}}
// replaces the keys it names and keeps the others (observed on langgraphjs
// dev 2.0.0; a nested object is replaced whole, not merged). A key cannot
// be removed: set to null it stays, as null. (hitl before this kept one
// key per interrupt, hitl_claim_<interrupt id>: read as well.)
//
// A PATCH moves the thread's updated_at, which is how other reviewers'
// change-driven polls see a claim at once; it would also make the
// interrupt look new (its age, the inbox's order). So every claim, and
// the record a release leaves, carries waiting_since: the interrupt's
// updated_at as the claiming reviewer saw it, which readers take instead
// of a later updated_at.

// claimPrefix starts the metadata key of an interrupt's claim.
const claimPrefix = "hitl_claim_"

// claimKey is the metadata key of client's claim on interrupt id.
func claimKey(id, client string) string {
	if client == "" {
		return claimPrefix + id
	}
	return claimPrefix + id + "_" + client
}

// claimRecord is a claim as the thread's metadata holds it. A record
// without a reviewer (a release) claims nothing.
type claimRecord struct {
	Reviewer    string    `json:"reviewer,omitempty"`
	Client      string    `json:"client,omitempty"`
	Interrupt   string    `json:"interrupt_id,omitempty"`
	Since       time.Time `json:"since,omitzero"`
	Expires     time.Time `json:"expires,omitzero"`
	Released    time.Time `json:"released,omitzero"`
	WaitingFrom time.Time `json:"waiting_since,omitzero"`
}

// Claim records c on the interrupt's thread.
func (b *Backend) Claim(ctx context.Context, it client.Interrupt, c client.Claim) error {
	rec := claimRecord{Reviewer: c.Reviewer, Client: c.Client, Interrupt: it.ID, Since: c.Since.UTC(), Expires: c.Expires.UTC(), WaitingFrom: it.UpdatedAt.UTC()}
	return b.patchMeta(ctx, it.ThreadID, map[string]any{claimKey(it.ID, c.Client): rec}, "record a claim on thread "+it.ThreadID)
}

// Release clears the claim: the record left says only since when the
// interrupt waits (null when that is not known).
func (b *Backend) Release(ctx context.Context, it client.Interrupt, c client.Claim) error {
	var v any
	if !it.UpdatedAt.IsZero() {
		v = claimRecord{Released: time.Now().UTC(), WaitingFrom: it.UpdatedAt.UTC()}
	}
	return b.patchMeta(ctx, it.ThreadID, map[string]any{claimKey(it.ID, c.Client): v}, "clear a claim on thread "+it.ThreadID)
}

// patchMeta merges keys into the thread's metadata. It is not a decision:
// the client for reads would retry it, and twice the same keys is the
// same metadata, but a claim is advice: one try, no retries.
func (b *Backend) patchMeta(ctx context.Context, threadID string, meta map[string]any, what string) error {
	resp, err := b.Writes.R().SetContext(ctx).SetBody(map[string]any{"metadata": meta}).
		Patch("/threads/" + url.PathEscape(threadID))
	if err := b.Check(resp, err, what, nil); err != nil {
		// The thread is gone (both servers: 404). Not noThreadStatus's 400
		// and 422 too: on a PATCH those also answer a body the server
		// refused, which must not pass for a thread that is gone.
		if resp != nil && resp.StatusCode() == http.StatusNotFound {
			return fmt.Errorf("%w: %w", err, client.ErrNoThread)
		}
		return err
	}
	return nil
}

// claimsOf reads the claims on interrupt id from the thread's metadata,
// one record per reviewer's hitl, and since when it waits by them (zero:
// they do not say).
func claimsOf(meta map[string]any, id string, created time.Time) (claims []client.Claim, waiting time.Time) {
	key := claimPrefix + id
	for k, raw := range meta {
		if raw == nil || (k != key && !strings.HasPrefix(k, key+"_")) {
			continue
		}
		c, w, ok := claimRecordOf(raw, id, created)
		if !w.IsZero() && (waiting.IsZero() || w.Before(waiting)) {
			waiting = w
		}
		if ok {
			claims = append(claims, c)
		}
	}
	// Map order is random: one order for a reader.
	slices.SortFunc(claims, func(a, b client.Claim) int {
		if d := a.Since.Compare(b.Since); d != 0 {
			return d
		}
		return strings.Compare(a.Client+a.Reviewer, b.Client+b.Reviewer)
	})
	return claims, waiting
}

// claimRecordOf reads one record: the claim it makes (ok false: none) and
// the waiting time it says.
func claimRecordOf(raw any, id string, created time.Time) (c client.Claim, waiting time.Time, ok bool) {
	b, err := json.Marshal(raw)
	if err != nil {
		return c, waiting, false
	}
	var rec claimRecord
	if json.Unmarshal(b, &rec) != nil {
		return c, waiting, false
	}
	// A time before the thread was created is not one (a broken or
	// hostile record).
	if rec.WaitingFrom.After(created) || rec.WaitingFrom.Equal(created) {
		waiting = rec.WaitingFrom
	}
	if strings.TrimSpace(rec.Reviewer) == "" || (rec.Interrupt != "" && rec.Interrupt != id) {
		return c, waiting, false
	}
	return client.Claim{Reviewer: rec.Reviewer, Client: rec.Client, Since: rec.Since, Expires: rec.Expires}, waiting, true
}
