package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/a2a"
	"github.com/hitl-sh/hitl/client/events"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/opencode"
	"github.com/hitl-sh/hitl/client/rest"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/redact"
	"github.com/hitl-sh/hitl/tui"
)

// env is what the program gets from outside.
type env struct {
	stdin io.Reader
	// stdout and stderr make everything written to them inert (termOut).
	stdout, stderr *termOut
	getenv         func(string) string
	// environ is the whole environment, for the commands watch --exec
	// runs (os.Environ; a test's own in tests).
	environ func() []string

	flags config.Overrides
}

// app is what a command works with once settings are resolved.
type app struct {
	settings *config.Settings
	backend  client.Backend
	feat     client.Features // what the backend offers, asked once
	journal  *journal.Journal
	stderr   io.Writer       // for warnings (journalWarn)
	warned   map[string]bool // the warnings said already
	// reading: the id is looked up to be read (hitl show), not decided:
	// an interrupt that no longer waits is told as what became of it, not
	// as a decision refused.
	reading bool
	// waiting is what findAll last read as waiting on the server (handled
	// ones left out), for checks across a thread before sending.
	waiting []client.Interrupt
}

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "hitl",
		Short: "Review human-in-the-loop interrupts of AI agents",
		Long: `hitl finds the interrupts where an AI agent waits for a human (approve, edit,
reject, respond), shows them exactly, and sends the resume value the graph expects.

With no subcommand it opens the reviewer (a terminal UI); the subcommands do the
same from scripts. hitl help config, hitl help environment and hitl help
exit-codes say how to set it up and what its exit status means.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// "hitl lst": did you mean list? (cobra sets this only on its own path)
		SuggestionsMinimumDistance: 2,
		Args:                       exactArgs(0, "a subcommand, or nothing to open the reviewer"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := noTerminal(openTTY); err != nil {
				return err
			}
			a, err := e.open(0)
			if err != nil {
				return err
			}
			return tui.Run(cmd.Context(), tui.Options{
				Backend: a.backend, Journal: a.journal, Reviewer: a.settings.Reviewer,
				PollInterval: a.settings.PollInterval, EditDialect: client.EditDialect(a.settings.EditDialect),
				Notify: a.settings.Notify, Theme: a.settings.Theme, Getenv: e.getenv, Editor: e.editor(), Keys: a.settings.Keys,
			})
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&e.flags.Profile, "profile", "", "config profile to use (env HITL_PROFILE)")
	pf.StringVar(&e.flags.Backend, "backend", "", "backend kind: langgraph, rest, events, a2a or opencode (env HITL_BACKEND)")
	pf.StringArrayVar(&e.flags.Tasks, "task", nil, "an A2A task id to review besides those the agent lists (repeatable; an agent of protocol 0.3 lists none)")
	pf.StringVar(&e.flags.URL, "url", "", "server URL (env HITL_URL; default "+config.DefaultURL+")")
	pf.StringVar(&e.flags.Graph, "graph", "", "only interrupts of this graph id (env HITL_GRAPH)")
	pf.StringVar(&e.flags.Assistant, "assistant", "", "only interrupts of this assistant id (env HITL_ASSISTANT)")
	pf.StringArrayVar(&e.flags.Headers, "header", nil, `extra request header "Name: value" (repeatable)`)
	pf.StringVar(&e.flags.Reviewer, "reviewer", "", "reviewer name for the audit log (env HITL_REVIEWER)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitErr{exitUsage, err} })
	root.Version = versionLine()
	root.SetVersionTemplate("{{.Version}}\n")

	root.AddCommand(
		listCmd(e), showCmd(e), watchCmd(e), conversationCmd(e),
		approveCmd(e), rejectCmd(e), dismissCmd(e), editCmd(e), respondCmd(e), ignoreCmd(e), decideCmd(e), resumeCmd(e),
		historyCmd(e), checkCmd(e), forgetCmd(e), configCmd(e), versionCmd(e), demoCmd(e), runCmd(e), manCmd(e), serveCmd(e), hookCmd(e),
	)
	// Cobra's own output (help, usage, completions) goes the way of hitl's,
	// set before withHelp makes the completion command (which keeps it).
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	withHelp(root)
	e.withCompletion(root)
	usageTyped(root)
	return root
}

// usageTyped makes every command's argument check return a usage error
// (exit status 2) by its type: cobra's own checks (cobra.MaximumNArgs…)
// return plain errors, told apart otherwise only by their words. Flag
// errors take the root's flag error function, which every command
// inherits; a command without an Args check takes any arguments (cobra
// checks only the root's, and the root has one).
func usageTyped(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			err := check(cmd, args)
			var ee *exitErr
			if err != nil && !errors.As(err, &ee) {
				return &exitErr{exitUsage, err}
			}
			return err
		}
	}
	for _, sub := range c.Commands() {
		usageTyped(sub)
	}
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n && !cmd.HasParent() {
			// hitl WORD: an unknown subcommand, most likely a typo.
			msg := fmt.Sprintf("unknown command %q", safe(args[0]))
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf("; did you mean %s?", strings.Join(s, " or "))
			}
			return usageErr("%s (hitl --help lists the commands)", msg)
		}
		if len(args) != n {
			return usageErr("%s: expected %s (see hitl %s --help)", cmd.Name(), what, cmd.Name())
		}
		return nil
	}
}

// open resolves settings and opens the backend and the journal.
func (e *env) open(follow time.Duration) (*app, error) {
	f, err := config.Load(config.Path(e.getenv))
	if err != nil {
		return nil, err
	}
	e.warn(f)
	s, err := config.Resolve(f, e.flags, e.getenv)
	if err != nil {
		return nil, &exitErr{exitUsage, err}
	}
	e.hideSecrets(s)
	b, err := newBackend(s, follow)
	if err != nil {
		return nil, &exitErr{exitUsage, err}
	}
	j, err := journal.Open(config.StateDir(e.getenv))
	if err != nil {
		return nil, err
	}
	feat := b.Features()
	if r := feat.Redactor; r != nil { // every backend on transport.Conn
		j.SetRedactor(r.Redact)
	}
	if s.ProfileName != "" && e.flags.URL == "" && e.getenv("HITL_URL") == "" {
		// hitl check finds a profile's decisions at any of its addresses
		// (a load balancer's replicas, a server that moved). Not with
		// another address given: that may be another deployment.
		j.SetDeployment("profile " + s.ProfileName)
	}
	return &app{settings: s, backend: b, feat: feat, journal: j, stderr: e.stderr}, nil
}

// hideSecrets makes everything printed from now on hide the credentials the
// settings hold, wherever they appear: a server that echoes the API key in
// a payload, a run's error or a message does not get it shown.
func (e *env) hideSecrets(s *config.Settings, more ...string) {
	r := redact.New(append(s.Credentials(), more...)...)
	e.stdout.hide, e.stderr.hide = r.Values, r.Values
}

// listing is the backend's listing. A hub that lists its inbox without one
// of its sources (its LangGraph server is down) lists the rest: that is
// said once on stderr, and the rest is the listing.
func (a *app) listing(ctx context.Context) ([]client.Interrupt, error) {
	all, err := a.backend.Pending(ctx)
	return all, a.sourceDown(err)
}

// sourceDown says once on stderr that a source of a hub's inbox is down
// (client.SourceDown), which leaves the rest of the listing good: nil then,
// err otherwise.
func (a *app) sourceDown(err error) error {
	if down, ok := client.DownSource(err); ok {
		msg := down.Error()
		if !a.warned[msg] && a.stderr != nil {
			if a.warned == nil {
				a.warned = map[string]bool{}
			}
			a.warned[msg] = true
			fmt.Fprintln(a.stderr, "hitl: warning:", msg)
		}
		err = nil
	}
	return err
}

// pending lists what waits for a decision, less what this machine handled.
func (a *app) pending(ctx context.Context) ([]client.Interrupt, error) {
	all, err := a.listing(ctx)
	if err != nil {
		return nil, err
	}
	return a.unhandled(all), nil
}

// unhandled is all as this machine shows it: recorded as seen, less what
// it handled (journal.Sift, as the TUI takes a listing).
func (a *app) unhandled(all []client.Interrupt) []client.Interrupt {
	return a.sift(all).Items
}

// sift is journal.Sift, saying on stderr when the sightings cannot be
// recorded.
func (a *app) sift(all []client.Interrupt) journal.Sifted {
	s := a.journal.Sift(all)
	a.journalWarn(s.SawErr, "one of them answered elsewhere may later be reported as unknown")
	return s
}

// journalWarn says on stderr, once per problem (watch lists again and
// again), what the state folder failed to do and what it means.
func (a *app) journalWarn(err error, meaning string) {
	if err == nil || a.stderr == nil {
		return
	}
	msg := fmt.Sprintf("%v: %s; free some space or fix the state folder's permissions (hitl config show names it)", err, meaning)
	if a.warned[msg] {
		return
	}
	if a.warned == nil {
		a.warned = map[string]bool{}
	}
	a.warned[msg] = true
	fmt.Fprintln(a.stderr, "hitl: warning:", msg)
}

// pipeline is the decision pipeline on this app's backend and journal.
func (a *app) pipeline() *decide.Pipeline {
	return &decide.Pipeline{Backend: a.backend, Journal: a.journal, Reviewer: a.settings.Reviewer,
		Encoding: client.EncodeOptions{Dialect: client.EditDialect(a.settings.EditDialect)}}
}

// reconcile resolves, against the server, decisions whose outcome this
// machine does not know (hitl was killed mid-send, the network broke), and
// says what it found on stderr.
func (a *app) reconcile(ctx context.Context, e *env) {
	results, err := a.pipeline().Reconcile(ctx, nil)
	if err != nil {
		fmt.Fprintln(e.stderr, "hitl: cannot read the audit log:", err)
		return
	}
	for _, r := range results {
		if r.Kind != decide.Unknown {
			fmt.Fprintln(e.stderr, "hitl: an earlier decision, looked up again:", r.Text())
		}
	}
}

// find resolves an id or unique prefix (at least 4 characters) to one
// waiting interrupt.
func (a *app) find(ctx context.Context, id string) (client.Interrupt, error) {
	its, err := a.findAll(ctx, []string{id}, "")
	if err != nil {
		return client.Interrupt{}, err
	}
	return its[0], nil
}

// listsAll reports whether every id (or prefix) is in the listing, or
// among the ids this machine knows answered (hidden).
func listsAll(all []client.Interrupt, hidden map[string]bool, ids []string) bool {
next:
	for _, id := range ids {
		id = strings.ToLower(strings.TrimSpace(id))
		for _, it := range all {
			if strings.HasPrefix(strings.ToLower(it.ID), id) {
				continue next
			}
		}
		for h := range hidden {
			if strings.HasPrefix(strings.ToLower(h), id) {
				continue next
			}
		}
		return false
	}
	return true
}

// mergeListings is a listing with what a second one found beside it
// (each interrupt once, the second's reading where both have it).
func mergeListings(first, second []client.Interrupt) []client.Interrupt {
	in := make(map[string]bool, len(second))
	for _, it := range second {
		in[it.ID] = true
	}
	out := slices.Clone(second)
	for _, it := range first {
		if !in[it.ID] {
			out = append(out, it)
		}
	}
	return out
}

// findAll resolves ids (or prefixes of 4+ characters), and with thread
// every waiting interrupt of that thread, reading the server once.
func (a *app) findAll(ctx context.Context, ids []string, thread string) ([]client.Interrupt, error) {
	for _, id := range ids {
		if len(strings.TrimSpace(id)) < 4 {
			return nil, usageErr("interrupt id %q is too short: give at least 4 characters of it (see hitl list)", safe(id))
		}
	}
	all, err := a.listing(ctx)
	if err != nil {
		return nil, err
	}
	sifted := a.sift(all)
	if thread == "" && !listsAll(all, sifted.Hidden, ids) {
		// A listing is paged: threads answered while it was read move
		// the ones after them to pages already read (a server with many
		// waiting threads and a busy team). Before an id is called gone,
		// the server is read once more.
		if again, err := a.backend.Pending(ctx); err == nil {
			all = mergeListings(all, again)
			sifted = a.sift(all)
		}
	}
	handled := sifted.Hidden
	a.waiting = a.waiting[:0]
	for _, it := range all {
		if !handled[it.ID] {
			a.waiting = append(a.waiting, it)
		}
	}
	var out []client.Interrupt
	seen := map[string]bool{}
	add := func(it client.Interrupt) {
		if !seen[it.ID] {
			seen[it.ID] = true
			out = append(out, it)
		}
	}
	if thread != "" {
		t := strings.ToLower(strings.TrimSpace(thread))
		if len(t) < 4 {
			return nil, usageErr("thread id %q is too short: give at least 4 characters of it", safe(thread))
		}
		threads := map[string]bool{}
		for _, it := range all {
			if present.ThreadMatches(it.ThreadID, t) && !handled[it.ID] {
				threads[it.ThreadID] = true
				add(it)
			}
		}
		switch {
		case len(threads) > 1:
			return nil, usageErr("thread %q matches %d threads; give more characters", safe(thread), len(threads))
		case len(threads) == 0:
			return nil, refusedErr("no waiting interrupt in thread %q on %s (see hitl list)", safe(thread), safe(a.backend.Server()))
		}
	}
	for _, id := range ids {
		it, err := a.findIn(ctx, all, sifted, id)
		if err != nil {
			return nil, err
		}
		add(it)
	}
	return out, nil
}

func (a *app) findIn(ctx context.Context, all []client.Interrupt, sifted journal.Sifted, id string) (client.Interrupt, error) {
	handled := sifted.Hidden
	id = strings.ToLower(strings.TrimSpace(id))
	var matches []client.Interrupt
	for _, it := range all {
		if strings.HasPrefix(strings.ToLower(it.ID), id) && (len(matches) == 0 || matches[len(matches)-1].ID != it.ID) {
			matches = append(matches, it)
		}
	}
	// handledMatch: a decision sent from this machine answered it;
	// elsewhereMatch: this machine found it answered by another decision.
	var handledMatch, elsewhereMatch string
	for h := range handled {
		switch {
		case !strings.HasPrefix(strings.ToLower(h), id):
		case sifted.Handled[h]:
			handledMatch = h
		default:
			elsewhereMatch = h
		}
	}
	if handledMatch != "" {
		// hitl before 2026-11 wrote ids it found answered elsewhere as
		// handled: the audit log tells them apart.
		if e, ok := a.journal.Last(handledMatch); ok && e.Outcome == journal.HandledElsewhere {
			handledMatch, elsewhereMatch = "", handledMatch
		}
	}
	if len(matches) == 0 {
		// Not waiting: held by a thread whose run failed, it can be
		// answered again (hitl list shows such threads).
		if retry, err := a.retryIn(ctx, id); err != nil || retry != nil {
			return derefOr(retry), err
		}
		// An A2A task named by its id (an agent that cannot list).
		if tasks, ok := a.backend.(interface {
			Task(context.Context, string) ([]client.Interrupt, error)
		}); ok {
			asked, err := tasks.Task(ctx, strings.TrimSpace(id))
			var done *a2a.NotWaitingError
			if errors.As(err, &done) {
				return client.Interrupt{}, a.taskNotWaiting(done)
			}
			if err != nil {
				return client.Interrupt{}, err
			}
			if len(asked) == 1 && !handled[asked[0].ID] {
				return asked[0], nil
			}
			matches = asked
		}
	}
	switch {
	case len(matches) > 1:
		var lines []string
		for _, m := range matches {
			lines = append(lines, fmt.Sprintf("  %s  %s  %s", safe(m.ID), safe(m.GraphID), oneLine(present.Summary(m), 50)))
		}
		return client.Interrupt{}, usageErr("%q matches %d interrupts; give more characters:\n%s", safe(id), len(matches), strings.Join(lines, "\n"))
	case len(matches) == 1 && !handled[matches[0].ID]:
		return matches[0], nil
	case handledMatch != "" && a.reading:
		msg := fmt.Sprintf("interrupt %s no longer waits: it was decided from this machine", safe(handledMatch))
		if e, ok := a.journal.Last(handledMatch); ok {
			by := ""
			if e.Reviewer != "" {
				by = " by " + safe(e.Reviewer)
			}
			msg += fmt.Sprintf(": %s%s at %s, %s", present.Decided(e), by, e.Time.Local().Format(time.DateTime), present.Outcome(e))
		}
		return client.Interrupt{}, nothingErr("%s (hitl history shows the decision)", msg)
	case handledMatch != "":
		msg := fmt.Sprintf("interrupt %s was already handled from this machine", safe(handledMatch))
		var mine *client.Winner
		if e, ok := a.journal.Last(handledMatch); ok {
			msg += fmt.Sprintf(" (%s by %s, %s)", e.Time.Local().Format(time.DateTime), safe(e.Reviewer), e.Outcome)
			mine = &client.Winner{RunID: e.RunID, Reviewer: e.Reviewer, At: e.Time, Value: e.Resume}
		}
		return client.Interrupt{}, about(nothingErr("%s; nothing sent (hitl forget %s makes it pending here again)", msg, present.ShortID(handledMatch)),
			"handled-here", handledMatch, mine)
	case elsewhereMatch != "":
		// Answered by another decision; what this machine tried (refused,
		// or not applied) is in its audit log, with the winner it learnt.
		var winner *client.Winner
		if e, ok := a.journal.Last(elsewhereMatch); ok {
			winner = e.Winner
		}
		if seen := a.journal.Sightings(elsewhereMatch); winner == nil && len(seen) == 1 {
			// Refused before any attempt was recorded: the server says.
			if st, err := a.backend.Standing(ctx, []client.Interrupt{seen[0].Interrupt()}); err == nil && len(st) == 1 {
				winner = st[0].By
			}
		}
		if a.reading {
			return client.Interrupt{}, nothingErr("interrupt %s no longer waits: it was answered elsewhere%s", safe(elsewhereMatch), decide.WinnerText(winner))
		}
		return client.Interrupt{}, about(nothingErr("%s: already handled elsewhere; nothing sent%s", safe(present.ShortID(elsewhereMatch)), decide.WinnerText(winner)),
			"handled-elsewhere", elsewhereMatch, winner)
	}
	// Not listed: if it was seen pending before, its thread tells whether it
	// was answered (and by whom) or is gone.
	seen := a.journal.Sightings(id)
	if len(seen) == 1 {
		it := seen[0].Interrupt()
		st, err := a.backend.Standing(ctx, []client.Interrupt{it})
		if err != nil {
			return client.Interrupt{}, fmt.Errorf("interrupt %s is no longer listed, and its thread could not be read to say why: %w", safe(present.ShortID(it.ID)), err)
		}
		if len(st) == 1 {
			switch st[0].Presence {
			case client.Answered:
				_ = a.journal.MarkElsewhere(it.ID)
				if a.reading {
					return client.Interrupt{}, nothingErr("%s no longer waits: it was answered elsewhere%s", safe(present.ShortID(it.ID)), decide.WinnerText(st[0].By))
				}
				return client.Interrupt{}, about(nothingErr("%s: already handled elsewhere; nothing sent%s", safe(present.ShortID(it.ID)), decide.WinnerText(st[0].By)),
					"handled-elsewhere", it.ID, st[0].By)
			case client.Gone:
				if a.reading {
					return client.Interrupt{}, nothingErr("interrupt %s: its thread %s no longer exists on %s", safe(present.ShortID(it.ID)), safe(it.ThreadID), safe(a.backend.Server()))
				}
				return client.Interrupt{}, about(nothingErr("interrupt %s: its thread %s no longer exists on %s; nothing sent", safe(present.ShortID(it.ID)), safe(it.ThreadID), safe(a.backend.Server())),
					"gone", it.ID, nil)
			}
		}
	}
	if len(seen) > 0 {
		return client.Interrupt{}, refusedErr("no waiting interrupt %q among those hitl lists on %s; nothing sent (hitl list shows what waits)", safe(id), safe(a.backend.Server()))
	}
	return client.Interrupt{}, refusedErr("no waiting interrupt %q on %s: it was answered, or never existed (this machine never saw it listed, so cannot tell which; hitl list shows what waits)", safe(id), safe(a.backend.Server()))
}

// taskNotWaiting says why an A2A task named by its id has nothing to
// answer: decided from this machine (the audit log says how), else
// answered elsewhere or ended. Nothing is sent (exit 3).
func (a *app) taskNotWaiting(done *a2a.NotWaitingError) error {
	state := safe(done.State)
	if state == "" {
		state = "in a state the agent does not name"
	}
	nothing := "; nothing sent"
	if a.reading {
		nothing = ""
	}
	if h, err := a.journal.History(); err == nil {
		for _, e := range h {
			if e.ThreadID == done.Task && e.Server == a.backend.Server() {
				by := ""
				if e.Reviewer != "" {
					by = " by " + safe(e.Reviewer)
				}
				return nothingErr("task %s no longer waits: it was decided from this machine: %s%s at %s, %s%s (hitl history shows the decision)",
					safe(done.Task), present.Decided(e), by, e.Time.Local().Format(time.DateTime), present.Outcome(e), nothing)
			}
		}
	}
	return nothingErr("task %s waits for no answer: it is %s (answered elsewhere, or ended)%s", safe(done.Task), state, nothing)
}

// retryIn finds id (or a prefix) among the interrupts that threads whose
// run failed still hold: nil when none matches.
func (a *app) retryIn(ctx context.Context, id string) (*client.Interrupt, error) {
	l := a.feat.FailureLister
	if l == nil {
		return nil, nil
	}
	fs, _, err := l.Failures(ctx, failuresRead)
	if err != nil {
		return nil, nil // the failed runs cannot be read now: not found, as before
	}
	var matches []client.Interrupt
	for _, f := range fs {
		for _, it := range f.Interrupts {
			if strings.HasPrefix(strings.ToLower(it.ID), id) {
				matches = append(matches, it)
			}
		}
	}
	switch len(matches) {
	case 0:
		return nil, nil
	case 1:
		return &matches[0], nil
	}
	return nil, usageErr("%q matches %d interrupts of failed runs; give more characters", safe(id), len(matches))
}

func derefOr(it *client.Interrupt) client.Interrupt {
	if it == nil {
		return client.Interrupt{}
	}
	return *it
}

// threadOf resolves a thread id or a prefix of 4+ characters among the
// threads this machine knows: pending now, seen pending, or decided. An id
// (or prefix) of an interrupt of one such thread is taken for its thread,
// said on stderr. A full id nobody here knows is taken as it is, not known
// (the server may know it).
func (a *app) threadOf(ctx context.Context, prefix string) (thread string, known bool, err error) {
	p := strings.ToLower(strings.TrimSpace(prefix))
	if len(p) < 4 {
		return "", false, usageErr("thread id %q is too short: give at least 4 characters of it", safe(prefix))
	}
	// found: the threads whose id matches; of: the threads of the
	// interrupts whose id matches (an interrupt id given for a thread's).
	found, of := map[string]bool{}, map[string]bool{}
	add := func(thread, interrupt string) {
		if present.ThreadMatches(thread, p) {
			found[thread] = true
		}
		if thread != "" && strings.HasPrefix(strings.ToLower(interrupt), p) {
			of[thread] = true
		}
	}
	if its, err := a.listing(ctx); err == nil {
		for _, it := range its {
			add(it.ThreadID, it.ID)
		}
	}
	for _, s := range a.journal.Sightings("") {
		add(s.ThreadID, s.ID)
	}
	h, herr := a.journal.History()
	a.journalWarn(herr, "threads known only from this machine's decisions are not matched")
	for _, e := range h {
		add(e.ThreadID, e.InterruptID)
	}
	if len(found) == 0 && len(of) > 0 {
		// No thread is named so: the id is an interrupt's, whose thread
		// holds the conversation.
		if len(of) == 1 {
			for id := range of {
				if a.stderr != nil {
					fmt.Fprintf(a.stderr, "hitl: %s is an interrupt id; showing the conversation of its thread %s\n", safe(prefix), safe(id))
				}
				return id, true, nil
			}
		}
		return "", false, usageErr("%q is the id of interrupts in %d threads: give a thread id (hitl show ID prints an interrupt's thread):\n%s", safe(prefix), len(of), sortedLines(of))
	}
	switch len(found) {
	case 1:
		for id := range found {
			return id, true, nil
		}
	case 0:
		return strings.TrimSpace(prefix), false, nil
	}
	return "", false, usageErr("%q matches %d threads; give more characters:\n%s", safe(prefix), len(found), sortedLines(found))
}

// sortedLines lists ids, one an indented line, in order.
func sortedLines(ids map[string]bool) string {
	var out []string
	for id := range ids {
		out = append(out, "  "+safe(id))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// newBackend opens the backend the settings name.
func newBackend(s *config.Settings, follow time.Duration) (client.Backend, error) {
	t := transport.Options{URL: s.URL, APIKey: s.APIKey, BearerToken: s.BearerToken, Headers: s.Headers,
		Timeout: s.Timeout, Long: follow, InsecureSkipVerify: s.InsecureSkipVerify}
	switch s.Backend {
	case "rest":
		return rest.New(rest.Options{Options: t, UserID: s.UserID, Follow: follow})
	case "events":
		return events.New(events.Options{Options: t, Reviewer: s.Reviewer})
	case "a2a":
		return a2a.New(a2a.Options{Options: t, Tasks: s.Tasks, LangGraph: s.LangGraphURL, Follow: follow})
	case "opencode":
		return opencode.New(opencode.Options{Options: t})
	}
	return langgraph.New(langgraph.Options{Options: t, Graph: s.Graph, Assistant: s.Assistant, Metadata: s.Metadata, Follow: follow,
		Live: s.LookEvery})
}

// editor is the external editor command: $VISUAL, else $EDITOR.
func (e *env) editor() string {
	if v := e.getenv("VISUAL"); v != "" {
		return v
	}
	return e.getenv("EDITOR")
}

// openTTY opens the controlling terminal, as the reviewer does.
func openTTY() (io.Closer, error) { return os.Open("/dev/tty") }

// noTerminal says, in the reviewer's words, that there is no terminal to
// open the reviewer on (a cron job, a pipe, a container without -t),
// before anything else is tried.
func noTerminal(open func() (io.Closer, error)) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	f, err := open()
	if err != nil {
		return &exitErr{exitUsage, errors.New("the reviewer needs a terminal, and this process has none (" + err.Error() + "): run hitl in a terminal (ssh -t, docker run -it), or use the commands made for scripts: hitl list, hitl watch, hitl approve ID")}
	}
	f.Close()
	return nil
}
