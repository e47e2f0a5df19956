package langgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// Approvals (client.ApprovalKeeper) live in the thread's metadata beside
// the claims, one key per interrupt: hitl_approval_<interrupt id>. A
// cleared approval stays as a record that says only since when the
// interrupt waits (a key cannot be removed; see claims.go), so that the
// PATCH that moved updated_at does not make the interrupt look new.

const approvalPrefix = "hitl_approval_"

// approvalRecord is an approval as the metadata holds it.
type approvalRecord struct {
	client.Approval
	Interrupt   string    `json:"interrupt_id,omitempty"`
	WaitingFrom time.Time `json:"waiting_since,omitzero"`
}

// Approval reads the interrupt's approval from the server now.
func (b *Backend) Approval(ctx context.Context, it client.Interrupt) (*client.Approval, error) {
	t, err := b.thread(ctx, it.ThreadID)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, fmt.Errorf("thread %s no longer exists on %s", it.ThreadID, b.Server())
	}
	return approvalOf(t.Metadata, it.ID), nil
}

// RecordApproval records a on the interrupt's thread (nil clears it).
func (b *Backend) RecordApproval(ctx context.Context, it client.Interrupt, a *client.Approval) error {
	rec := approvalRecord{Interrupt: it.ID, WaitingFrom: it.UpdatedAt.UTC()}
	if a != nil {
		rec.Approval = *a
	}
	return b.patchMeta(ctx, it.ThreadID, map[string]any{approvalPrefix + it.ID: rec}, "record an approval on thread "+it.ThreadID)
}

func readApproval(meta map[string]any, id string) (approvalRecord, bool) {
	raw, ok := meta[approvalPrefix+id]
	if !ok || raw == nil {
		return approvalRecord{}, false
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return approvalRecord{}, false
	}
	var rec approvalRecord
	if json.Unmarshal(b, &rec) != nil || (rec.Interrupt != "" && rec.Interrupt != id) {
		return approvalRecord{}, false
	}
	return rec, true
}

// approvalOf is the approval on interrupt id, nil when none stands (a
// cleared or unreadable record, or one naming no approver).
func approvalOf(meta map[string]any, id string) *client.Approval {
	rec, ok := readApproval(meta, id)
	if !ok || (len(rec.Approvers) == 0 && len(rec.Dropped) == 0) || rec.Needed < 2 || len(rec.Value) == 0 {
		return nil
	}
	for _, a := range rec.Approvers {
		if strings.TrimSpace(a) == "" {
			return nil
		}
	}
	a := rec.Approval
	return &a
}

// approvalWaiting is since when the interrupt waits by its approval record
// (zero: it does not say, or says a time before the thread existed).
func approvalWaiting(meta map[string]any, id string, created time.Time) time.Time {
	rec, ok := readApproval(meta, id)
	if !ok || rec.WaitingFrom.Before(created) {
		return time.Time{}
	}
	return rec.WaitingFrom
}
