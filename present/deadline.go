package present

import (
	"sort"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/inert"
)

// Deadline says when the agent stops waiting and what it then does:
// "expires in 4m, then: reject", "expired 2m ago, then: reject"; "" when
// the interrupt gives no deadline.
func Deadline(it *client.Interrupt, now time.Time) string {
	if it.ExpiresAt.IsZero() {
		return ""
	}
	then := ""
	if it.Default != "" {
		then = ", then: " + inert.Line(it.Default)
	}
	if !now.Before(it.ExpiresAt) {
		return "EXPIRED " + Age(it.ExpiresAt, now) + " ago" + then
	}
	return "expires in " + Age(now, it.ExpiresAt) + then
}

// Expired reports whether the interrupt's deadline has passed.
func Expired(it *client.Interrupt, now time.Time) bool {
	return !it.ExpiresAt.IsZero() && !now.Before(it.ExpiresAt)
}

// DeadlinesFirst moves the interrupts with a deadline to the front,
// soonest first; the others keep their order.
func DeadlinesFirst(its []client.Interrupt) {
	sort.SliceStable(its, func(i, j int) bool {
		a, b := its[i].ExpiresAt, its[j].ExpiresAt
		switch {
		case a.IsZero() || b.IsZero():
			return !a.IsZero() && b.IsZero()
		}
		return a.Before(b)
	})
}
