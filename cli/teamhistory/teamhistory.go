// Package teamhistory is hitl history --team: the team's audit log read
// from a hub (GET /hitl/history, the reviewer's token), filtered as asked,
// printed one row per decision or as JSON Lines.
package teamhistory

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/coord"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/redact"
	"github.com/hitl-sh/hitl/review"
	"github.com/hitl-sh/hitl/store"
)

// Filter is what `hitl history --team` asks of the hub's audit log: each
// field, when set, keeps only the decisions it names.
type Filter struct {
	Reviewer, Source, Tool, Outcome, Request, Since string
}

// Options are hitl history --team's.
type Options struct {
	Stdout io.Writer
	// Settings name the hub (URL) and the reviewer's token and headers.
	Settings *config.Settings
	Filter
	Limit int  // at most this many (0: all)
	JSON  bool // JSON Lines, one object per decision
}

// Run prints the team's audit log, read from the hub at the command's URL
// (GET /hitl/history) with the reviewer's token: every decision of every
// reviewer, through every door, newest first.
func Run(ctx context.Context, o *Options) error {
	s, f, limit, asJSON := o.Settings, o.Filter, o.Limit, o.JSON
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return review.Usagef("history --team: the hub's URL %q is not an http(s) URL: give --url http://HUB:PORT", safe(redact.URL(s.URL)))
	}
	if s.BearerToken == "" {
		return review.Usagef("history --team: no token for the hub: set HITL_BEARER_TOKEN to your reviewer's token")
	}
	if f.Outcome != "" {
		o, ok := store.OutcomeOf(f.Outcome)
		if !ok {
			return review.Usagef("history --outcome: no outcome %q: give one of %s", safe(f.Outcome), strings.Join(store.Outcomes, ", "))
		}
		f.Outcome = o
	}
	q := url.Values{}
	for k, v := range map[string]string{"reviewer": f.Reviewer, "source": f.Source, "tool": f.Tool, "outcome": f.Outcome, "request_id": f.Request} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Since != "" {
		d, err := time.ParseDuration(f.Since)
		if err == nil {
			q.Set("since", time.Now().Add(-d).UTC().Format(time.RFC3339))
		} else if t, err := time.Parse(time.RFC3339, f.Since); err == nil {
			q.Set("since", t.UTC().Format(time.RFC3339))
		} else {
			return review.Usagef("history --since: give a duration (24h) or a time (2026-01-02T15:04:05Z)")
		}
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if s.InsecureSkipVerify {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the profile asked for it
	}
	// The token goes to the hub named, never where a redirect points.
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, "GET", strings.TrimRight(s.URL, "/")+"/hitl/history?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	for k, v := range s.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Authorization", "Bearer "+s.BearerToken)
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return &review.Error{Kind: review.Failed, Err: fmt.Errorf("history --team: cannot reach the hub at %s: %v (is hitl serve --http running there? Give the hub's address with --url or HITL_URL)", redact.URL(s.URL), err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var m struct {
			Message string `json:"message"`
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		_ = json.Unmarshal(b, &m)
		if resp.StatusCode == http.StatusNotFound && m.Message == "" {
			m.Message = "it has no team audit log: is it a hitl hub (hitl serve --http)?"
		}
		if resp.StatusCode == http.StatusUnprocessableEntity {
			// What was asked is wrong (an ambiguous --request).
			return review.Usagef("history --team: %s", safe(m.Message))
		}
		return &review.Error{Kind: review.Failed, Err: fmt.Errorf("history --team: the hub answered HTTP %d: %s", resp.StatusCode, safe(m.Message))}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	n := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var a coord.AuditLine
		if err := json.Unmarshal(line, &a); err != nil {
			return &review.Error{Kind: review.Failed, Err: fmt.Errorf("history --team: the hub's answer is not its audit log (%v)", err)}
		}
		n++
		if asJSON {
			if err := present.WriteJSON(o.Stdout, a, false); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintln(o.Stdout, Row(a))
	}
	if err := sc.Err(); err != nil {
		return &review.Error{Kind: review.Failed, Err: fmt.Errorf("history --team: the hub's answer broke off: %v", err)}
	}
	if n == 0 && !asJSON {
		fmt.Fprintln(o.Stdout, "No decisions in the team's audit log match.")
	}
	return nil
}

// Row is one audit entry on one line: when, who (role), what, on
// which request of which source, through which door, and what came of it
// (in words, as the reviewer's own history says it: "approval recorded").
func Row(a coord.AuditLine) string {
	who := a.Reviewer
	if a.Role != "" {
		who += " (" + a.Role + ")"
	}
	what := a.Decision
	if len(a.Tools) > 0 {
		what += " " + strings.Join(a.Tools, ",")
	}
	row := fmt.Sprintf("%s  %-20s  %-24s  %s (%s, %s)  %s", a.At.Local().Format("2006-01-02 15:04:05"), safe(who), safe(what),
		safe(a.RequestID), safe(a.Source), safe(a.Door), safe(present.OutcomeWords(a.Outcome)))
	if len(a.Approvers) > 1 {
		row += "  approvers " + safe(strings.Join(a.Approvers, " + "))
	}
	if a.First != 0 {
		row += fmt.Sprintf("  (completes the approval #%d)", a.First)
	}
	if reason := rejectReason(a.Value); reason != "" {
		row += "  reason " + strconv.Quote(ansi.Truncate(safe(reason), reasonWidth, "…"))
	}
	if a.Message != "" {
		row += ": " + safe(a.Message)
	}
	return fmt.Sprintf("#%-5d %s", a.ID, row)
}

// safe makes a hub's text printable on one line.
var safe = inert.Line

// reasonWidth is how much of a reject's reason a row shows; a longer one
// ends in "…" (--json has it whole).
const reasonWidth = 72

// rejectReason is the message of the value's rejects, "; " between two
// (once when they all say the same).
func rejectReason(v json.RawMessage) string {
	var d struct {
		Decisions []struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"decisions"`
	}
	if json.Unmarshal(v, &d) != nil {
		return ""
	}
	var out []string
	for _, x := range d.Decisions {
		if x.Type == "reject" && strings.TrimSpace(x.Message) != "" {
			out = append(out, x.Message)
		}
	}
	if len(out) > 1 && !slices.ContainsFunc(out, func(m string) bool { return m != out[0] }) {
		return out[0] // one reason for every action: said once
	}
	return strings.Join(out, "; ")
}
