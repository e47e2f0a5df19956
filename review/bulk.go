package review

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
)

// Approve in bulk, one rule for the CLI (hitl approve --all --tool) and
// the TUI (A on marked or filtered rows): an interrupt is approved only
// when every one of its slots allows approve; any other is left out, with
// why, never approved in part. A team rule's first approval standing on it
// (a hub) is confirmed in bulk only when it is that same plain approve of
// every action as listed: one that is anything else (an edit, a response,
// another decision) is left out, for the reviewer to open and confirm as
// it is, since a bulk approve of the call as shown would replace it with
// something other than what was approved; one the reviewer gave already is
// left out too (another approver confirms it).

// Left is an interrupt a bulk approve leaves out, and why: it also calls
// Others (approve --all --tool), or a slot of it allows only Allowed, or
// the approval Standing on it is not a plain approve of every action, or
// Yours: the reviewer approved it already.
type Left struct {
	Interrupt client.Interrupt
	Others    []string
	Allowed   []client.DecisionType
	Standing  *client.Approval
	Yours     bool
}

// Why says why it is left out, in the words the CLI and the TUI both
// print (made printable by the caller): "alice's approval is an edit (edit
// Bash): a bulk approve of the call as shown would replace it".
func (l Left) Why() string {
	switch {
	case len(l.Others) > 0:
		return "it also calls " + strings.Join(l.Others, ", ")
	case l.Standing != nil:
		it := l.Interrupt
		return fmt.Sprintf("%s approval is %s (%s): a bulk approve of what is shown would replace it", whose(l.Standing), approvalKind(l.Standing), present.Approved(&it, false))
	case l.Yours:
		return fmt.Sprintf("you approved it already (%s): another approver confirms it", l.Interrupt.Approval.Counted())
	}
	return "approve is not allowed here (allowed: " + present.Types(l.Allowed) + ")"
}

// whose names the approvers of a: "alice's", "alice and bob's".
func whose(a *client.Approval) string {
	switch n := len(a.Approvers); n {
	case 1:
		return a.Approvers[0] + "'s"
	default:
		return strings.Join(a.Approvers[:n-1], ", ") + " and " + a.Approvers[n-1] + "'s"
	}
}

// approvalKind says what kind of decision a is: "an edit", "a response".
func approvalKind(a *client.Approval) string {
	if len(a.Decisions) == 0 {
		return "a resume value hitl cannot read into this call's decisions"
	}
	var kinds []string
	for _, d := range a.Decisions {
		t := string(d.Type)
		if d.Type == client.Approve {
			if !plainApprove(d) {
				kinds = append(kinds, "approve with options")
			}
			continue
		}
		if !slices.Contains(kinds, t) {
			kinds = append(kinds, t)
		}
	}
	if len(kinds) != 1 {
		return "a mix of decisions (" + strings.Join(kinds, ", ") + ")"
	}
	switch kinds[0] {
	case string(client.Edit):
		return "an edit"
	case string(client.Respond):
		return "a response"
	case string(client.Reject):
		return "a reject"
	case string(client.Ignore):
		return "an ignore"
	}
	return "a " + kinds[0]
}

// plainApprove reports whether d is an approve and nothing more.
func plainApprove(d client.Decision) bool {
	return d.Type == client.Approve && len(d.Args) == 0 && d.Name == "" && d.Message == "" && len(d.Answers) == 0 && len(d.Value) == 0 && !d.Stop && !d.Always
}

// standing is the approval that stands on it, none when nobody's counts.
func standing(it client.Interrupt) *client.Approval {
	if a := it.Approval; a != nil && len(a.Approvers) > 0 {
		return a
	}
	return nil
}

// approval is the draft that approves every slot of it, or why it cannot.
func approval(it client.Interrupt, reviewer string) (decide.Draft, *Left) {
	ds := make([]client.Decision, it.Slots())
	for i := range ds {
		if !it.Allows(i, client.Approve) {
			return decide.Draft{}, &Left{Interrupt: it, Allowed: it.AllowedAt(i)}
		}
		ds[i] = client.Decision{Type: client.Approve}
	}
	if a := standing(it); a != nil {
		if len(a.Decisions) != len(ds) || slices.ContainsFunc(a.Decisions, func(d client.Decision) bool { return !plainApprove(d) }) {
			return decide.Draft{}, &Left{Interrupt: it, Standing: a}
		}
		if reviewer != "" && a.Has(reviewer) {
			return decide.Draft{}, &Left{Interrupt: it, Yours: true}
		}
	}
	return decide.Draft{Interrupt: it, Decisions: ds}, nil
}

// Approvals is the bulk approve of its by reviewer: a draft for each
// interrupt whose every slot allows approve (and whose standing approval,
// if any, is another approver's plain approve), in order, and the rest
// left out.
func Approvals(its []client.Interrupt, reviewer string) (drafts []decide.Draft, left []Left) {
	for _, it := range its {
		d, l := approval(it, reviewer)
		if l != nil {
			left = append(left, *l)
			continue
		}
		drafts = append(drafts, d)
	}
	return drafts, left
}

// Approvable counts the interrupts of its that Approvals approves.
func Approvable(its []client.Interrupt, reviewer string) int {
	d, _ := Approvals(its, reviewer)
	return len(d)
}

// ApprovalsOfTool is the bulk approve of the interrupts of its that call
// tool, and, with match, whose summary or arguments contain it (any case):
// one that also calls other tools is left out naming them (it is approved
// by id after reading it), then Approvals' rule.
func ApprovalsOfTool(its []client.Interrupt, reviewer, tool, match string) (drafts []decide.Draft, left []Left) {
	for _, it := range its {
		if len(it.Actions) == 0 {
			continue
		}
		var others []string
		mine := false
		for _, act := range it.Actions {
			if act.Name == tool {
				mine = true
			} else {
				others = append(others, act.Name)
			}
		}
		if !mine || !matches(it, match) {
			continue
		}
		if len(others) > 0 {
			left = append(left, Left{Interrupt: it, Others: others})
			continue
		}
		d, l := approval(it, reviewer)
		if l != nil {
			left = append(left, *l)
			continue
		}
		drafts = append(drafts, d)
	}
	return drafts, left
}

// matches reports whether it's summary or arguments contain match.
func matches(it client.Interrupt, match string) bool {
	if match == "" {
		return true
	}
	text := strings.ToLower(present.Summary(it))
	for _, act := range it.Actions {
		text += " " + strings.ToLower(string(act.Args))
	}
	return strings.Contains(text, strings.ToLower(match))
}

// What y does to each interrupt of a bulk approve, as the team's rule says
// it (the same count a hub's Resume makes: client.Count): sent, or
// recorded as an approval while the rule asks for more approvers than
// have approved; where the rule is not told (a hub's door), it may be
// either.
const (
	Sends     EffectKind = iota // sent
	Records                     // recorded as an approval: nothing sent
	MayRecord                   // sent, or recorded if a team rule asks for another approver
	Held                        // in one resume with an approval only recorded: nothing sent
)

// EffectKind is what y does to one interrupt of a bulk approve.
type EffectKind int

// Effect is what sending a bulk approval of one interrupt does.
type Effect struct {
	Kind EffectKind
	// Confirms is the other approvers' approval this one confirms (the
	// same plain approve), nil when none stands.
	Confirms *client.Approval
	// Next is where the approvals stand with this one counted, nil where
	// no rule was told.
	Next *client.Approval
	// With is the interrupt whose approval, only recorded, holds the one
	// resume this goes in (Held).
	With string
	// Unnamed: the reviewer is not known here (the CLI through a hub's
	// door, where the hub names the token's): a standing approval may be
	// this reviewer's own, which the hub refuses.
	Unnamed bool
}

// InOneResume is effects (one per interrupt of ids) once they go in
// resumes (each a list of ids; a thread's branches go in one): a hub
// sends nothing of a resume one of whose approvals it only records, so an
// interrupt that would be sent in one with such an approval is Held.
func InOneResume(effects []Effect, ids []string, resumes [][]string) []Effect {
	out := slices.Clone(effects)
	at := map[string]int{}
	for i, id := range ids {
		at[id] = i
	}
	for _, r := range resumes {
		recorded := ""
		for _, id := range r {
			if i, ok := at[id]; ok && out[i].Kind == Records {
				recorded = id
				break
			}
		}
		if recorded == "" {
			continue
		}
		for _, id := range r {
			if i, ok := at[id]; ok && out[i].Kind != Records {
				out[i] = Effect{Kind: Held, With: recorded}
			}
		}
	}
	return out
}

// Does is what reviewer's bulk approval of it (a draft of Approvals) does
// under a rule that asks for needed approvers (0: not told; the approval
// standing on it says how many it asked for); ruled: a team rule may
// record an approve rather than send it, where it is not told.
func Does(it client.Interrupt, reviewer string, needed int, ruled bool) Effect {
	a := standing(it)
	if needed == 0 && a != nil {
		needed = a.Needed
	}
	if needed == 0 {
		if ruled {
			return Effect{Kind: MayRecord}
		}
		return Effect{Kind: Sends}
	}
	unnamed := reviewer == ""
	if unnamed {
		reviewer = "you"
	}
	next := client.Approval{Approvers: []string{reviewer}}
	if a != nil {
		next = *a
		next.Approvers = append(slices.Clone(a.Approvers), reviewer)
	}
	next.Needed = needed
	e := Effect{Kind: Records, Confirms: a, Next: &next, Unnamed: unnamed && a != nil}
	if len(next.Approvers) >= needed {
		e.Kind = Sends
	}
	return e
}

// Words say what y does: "sends", "records your approval (1 of 2
// approvals (bob)), nothing sent", "confirms alice's approval (sends)".
func (e Effect) Words() string {
	switch {
	case e.Kind == Held:
		return fmt.Sprintf("nothing sent: it goes in one resume with %s, whose approval is only recorded; approve it on its own (open it)", present.ShortID(e.With))
	case e.Kind == MayRecord:
		return "sends, or records your approval if a team rule asks for another approver"
	case e.Kind == Records && e.Confirms != nil:
		return fmt.Sprintf("confirms %s approval: records yours (%s), nothing sent%s", whose(e.Confirms), e.Next.Counted(), e.unlessYours())
	case e.Kind == Records:
		return fmt.Sprintf("records your approval (%s), nothing sent", e.Next.Counted())
	case e.Confirms != nil:
		return fmt.Sprintf("confirms %s approval (sends)%s", whose(e.Confirms), e.unlessYours())
	}
	return "sends"
}

// unlessYours is what an Unnamed effect adds: the hub refuses an
// approval given twice, and only the hub knows whose token this is.
func (e Effect) unlessYours() string {
	if !e.Unnamed {
		return ""
	}
	return "; if that approval is yours, the hub refuses this one"
}

// Summary says what y does to them all: "sends them once" when each is
// sent, else "sends 1 and records 2 approvals (nothing sent for those)".
func Summary(es []Effect) string {
	var sends, records, may, held int
	for _, e := range es {
		switch e.Kind {
		case Records:
			records++
		case Held:
			held++
		case MayRecord:
			may++
		default:
			sends++
		}
	}
	if records == 0 && may == 0 && held == 0 {
		return "sends them once"
	}
	var parts []string
	if sends > 0 {
		parts = append(parts, fmt.Sprintf("sends %d", sends))
	}
	if records > 0 {
		parts = append(parts, fmt.Sprintf("records %d %s (nothing sent for %s)", records, plural(records, "approval", "approvals"), plural(records, "it", "those")))
	}
	if may > 0 {
		parts = append(parts, fmt.Sprintf("sends %d or records your approval where a team rule asks for another approver", may))
	}
	if held > 0 {
		parts = append(parts, fmt.Sprintf("sends nothing for %d in one resume with those", held))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
