// Package hub serves the team's inbox: the reviewer (package tui) over SSH,
// one session per reviewer, all on one shared backend (Shared) that holds
// the server's credentials, with identity from keys and roles from the team
// config (package team).
package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/rules"
	"github.com/hitl-sh/hitl/team"
	"github.com/hitl-sh/hitl/tui"
)

// NewLogger is the hub's log: one logfmt line per event, written to w.
func NewLogger(w io.Writer) *Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// Logger is the hub's log (log/slog's), named here so that the command
// passes it on without reaching for a logger of its own.
type Logger = slog.Logger

// DefaultIdle is how long a session may go without a key before it is
// closed.
const DefaultIdle = 30 * time.Minute

// SessionPoll is how often a session reads the shared listing without being
// told of a change: the shared watcher tells every session of each change
// at once, so this is only a safety net, and each read costs the session a
// pass over every row (at 1,000 pending, most of an idle session's CPU).
const SessionPoll = 30 * time.Second

// stopGrace is how long a session that was told to stop may take to record
// a decision in flight before it is cut.
const stopGrace = 15 * time.Second

// Options configure the SSH server.
type Options struct {
	// HostKey is the host key's file; created (ed25519) when missing.
	HostKey string
	// Idle closes a session after this long without a key (0: DefaultIdle).
	Idle time.Duration
	// Team is the team in force (it changes on a reload).
	Team func() *team.Config
	// Backend is the one backend every session shares.
	Backend *Shared
	// StateDir holds one journal per reviewer (drafts, decisions, claims'
	// client id) under reviewers/NAME.
	StateDir string
	// Redact hides the backend's credentials in what journals record.
	Redact func(string) string
	// TUI is the reviewer's settings every session starts from (poll
	// interval, edit dialect, keys, theme, notifications).
	TUI tui.Options
	// Name is the hub's name in each session's header.
	Name string
	Log  *slog.Logger
}

// SSH is the hub's SSH server.
type SSH struct {
	opts Options
	srv  *ssh.Server

	mu       sync.Mutex
	journals map[string]*journal.Journal
	sessions map[*session]struct{}
	stopping bool
	active   sync.WaitGroup
}

// session is one reviewer's connection.
type session struct {
	reviewer string
	p        *tea.Program
	reason   atomic.Pointer[string]
}

// stop ends the session's app as ctrl+c would, saying why afterwards.
func (s *session) stop(reason string) {
	if s.reason.CompareAndSwap(nil, &reason) {
		s.p.Send(tui.Stop())
		go func() {
			time.Sleep(stopGrace)
			s.p.Kill()
		}()
	}
}

// TeamChanged tells every open session that the team was reloaded: each
// reads its reviewer's role and the rules again and redraws at once (a
// reviewer made a viewer loses the decision keys there and then).
func (h *SSH) TeamChanged() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.sessions {
		go s.p.Send(tui.TeamChanged())
	}
}

// NewSSH builds the server; Serve runs it.
func NewSSH(o Options) (*SSH, error) {
	if o.Idle <= 0 {
		o.Idle = DefaultIdle
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Name == "" {
		o.Name = "hub"
	}
	h := &SSH{opts: o, journals: map[string]*journal.Journal{}, sessions: map[*session]struct{}{}}
	if err := os.MkdirAll(filepath.Dir(o.HostKey), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the directory of the host key %s: %w", o.HostKey, err)
	}
	srv, err := wish.NewServer(
		wish.WithHostKeyPath(o.HostKey),
		wish.WithPublicKeyAuth(h.authorize),
		wish.WithVersion("hitl"),
		func(s *ssh.Server) error { s.Handler = h.handle; return nil },
	)
	if err != nil {
		return nil, fmt.Errorf("cannot start the SSH server (host key %s): %w", o.HostKey, err)
	}
	srv.HandshakeTimeout = 30 * time.Second
	h.srv = srv
	return h, nil
}

// authorize lets in the keys of the team's reviewers, and nobody else.
func (h *SSH) authorize(ctx ssh.Context, key ssh.PublicKey) bool {
	if _, _, ok := h.opts.Team().ByKey(key); ok {
		return true
	}
	h.opts.Log.Info("key refused", "addr", ctx.RemoteAddr().String(), "user", inert.Line(ctx.User()), "key", gossh.FingerprintSHA256(key))
	return false
}

// Serve accepts sessions on ln until ctx ends; then it lets each session
// record what it is sending, closes it with a word of why, and returns.
func (h *SSH) Serve(ctx context.Context, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- h.srv.Serve(ln) }()
	select {
	case err := <-errc:
		if errors.Is(err, ssh.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
	}
	h.Shutdown("the hub is shutting down")
	return nil
}

// Shutdown stops taking sessions, ends every session (a decision in flight
// is recorded first) with reason, and waits for them.
func (h *SSH) Shutdown(reason string) {
	h.mu.Lock()
	h.stopping = true
	for s := range h.sessions {
		s.stop(reason)
	}
	h.mu.Unlock()
	// Close the listener and wait for the sessions to end (each records
	// what it is sending first); a connection a client holds open past that
	// is cut.
	ctx, cancel := context.WithTimeout(context.Background(), stopGrace+5*time.Second)
	defer cancel()
	_ = h.srv.Shutdown(ctx)
	done := make(chan struct{})
	go func() { h.active.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	_ = h.srv.Close()
}

// Sessions is how many sessions are open.
func (h *SSH) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// JournalOf is the reviewer's journal: their drafts, their decisions, and
// the client id their claims carry (two reviewers never share one). The
// HTTP door's decisions (Door) are recorded in it too.
func (h *SSH) JournalOf(name string) (*journal.Journal, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if j := h.journals[name]; j != nil {
		return j, nil
	}
	j, err := journal.Open(filepath.Join(h.opts.StateDir, "reviewers", name))
	if err != nil {
		return nil, err
	}
	if h.opts.Redact != nil {
		j.SetRedactor(h.opts.Redact)
	}
	h.journals[name] = j
	return j, nil
}

// refuse ends a session that cannot be served, with one line and status 1.
func refuse(sess ssh.Session, msg string) {
	_, _ = fmt.Fprintf(sess.Stderr(), "hitl: %s\r\n", msg)
	_ = sess.Exit(1)
	_ = sess.Close()
}

func (h *SSH) handle(sess ssh.Session) {
	start := time.Now()
	addr := sess.RemoteAddr().String()
	name, r, ok := h.opts.Team().ByKey(sess.PublicKey())
	if !ok {
		// The team changed (a reload) between the key and the session.
		refuse(sess, "this key is no longer a reviewer's of this hub")
		return
	}
	log := h.opts.Log.With("reviewer", name, "addr", addr)
	pty, winCh, hasPty := sess.Pty()
	switch {
	case len(sess.Command()) > 0:
		log.Info("session refused", "why", "a command")
		refuse(sess, "the hub serves the reviewer only, not commands: run ssh without a command (and with a terminal)")
		return
	case !hasPty:
		log.Info("session refused", "why", "no terminal")
		refuse(sess, "the reviewer needs a terminal: run ssh -t (or without -T)")
		return
	}
	h.mu.Lock()
	if h.stopping {
		h.mu.Unlock()
		refuse(sess, "the hub is shutting down")
		return
	}
	h.active.Add(1)
	h.mu.Unlock()
	defer h.active.Done()

	j, err := h.JournalOf(name)
	if err != nil {
		log.Error("session refused", "why", err)
		refuse(sess, "the hub cannot open its state directory: tell whoever runs it")
		return
	}
	env := append(sess.Environ(), "TERM="+pty.Term)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := h.opts.TUI
	opts.PollInterval = max(opts.PollInterval, SessionPoll)
	opts.Backend, opts.Journal, opts.Reviewer = h.opts.Backend, j, name
	opts.ViewOnly = !r.Role.CanDecide()
	// The role in force at each key and frame: a reload that makes alice a
	// viewer takes the decision keys from her open session at once.
	opts.MayDecide = func() bool { return h.opts.Team().MayDecide(name) }
	opts.Host = h.opts.Name
	// What the team's rule asks for now (a reload may change it): the
	// confirm screen says an approve that it records rather than sends.
	opts.ApprovalsNeeded = func(it client.Interrupt, ds []client.Decision) int {
		t := h.opts.Team()
		if t == nil {
			return 1
		}
		return rules.NeedOf(t, &it.Payload, ds).Approvals
	}
	opts.Getenv = lookup(env)
	opts.Editor, opts.NoExternalEditor = "", true // never a program on the hub's machine
	opts.Context = ctx
	m, err := tui.New(opts)
	if err != nil {
		log.Error("session refused", "why", err)
		refuse(sess, inert.Line(err.Error()))
		return
	}
	in := &idleReader{r: sess}
	in.touch()
	// tui.NewProgram paces the renderer as a local reviewer's is: an idle
	// session's frame ticker wakes once a second, not at the frame rate.
	popts := append(bubbletea.MakeOptions(sess), tea.WithInput(in), tea.WithoutSignalHandler(), tea.WithEnvironment(env))
	s := &session{reviewer: name, p: tui.NewProgram(m, popts...)}
	h.mu.Lock()
	h.sessions[s] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.sessions, s)
		h.mu.Unlock()
	}()
	log.Info("session start", "role", string(r.Role), "key", gossh.FingerprintSHA256(sess.PublicKey()), "term", inert.Line(pty.Term),
		"size", fmt.Sprintf("%dx%d", pty.Window.Width, pty.Window.Height))

	// The window's size, the client's hang-up and the idle clock.
	go func() {
		idle := time.NewTicker(min(h.opts.Idle/4, 30*time.Second))
		defer idle.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-sess.Context().Done():
				s.stop("")
				return
			case w := <-winCh:
				s.p.Send(tea.WindowSizeMsg{Width: w.Width, Height: w.Height})
			case <-idle.C:
				if time.Since(in.last()) >= h.opts.Idle {
					s.stop(fmt.Sprintf("closed after %s without a key", h.opts.Idle))
				}
			}
		}
	}()
	_, err = s.p.Run()
	cancel()
	why := "the reviewer quit"
	if p := s.reason.Load(); p != nil {
		why = *p
		if why == "" {
			why = "the connection ended"
		}
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		log.Error("session failed", "error", err)
	}
	if p := s.reason.Load(); p != nil && *p != "" {
		_, _ = fmt.Fprintf(sess, "hitl: session ended: %s.\r\n", why)
	}
	log.Info("session end", "duration", time.Since(start).Round(time.Second).String(), "why", why)
	_ = sess.Exit(0)
}

// lookup reads a session's environment.
func lookup(env []string) func(string) string {
	return func(k string) string {
		v := ""
		for _, e := range env {
			if name, val, ok := strings.Cut(e, "="); ok && name == k {
				v = val // the last one wins, as in a shell
			}
		}
		return v
	}
}

// idleReader is a session's input, noting when a key last came.
type idleReader struct {
	r  io.Reader
	at atomic.Int64
}

func (i *idleReader) Read(p []byte) (int, error) {
	n, err := i.r.Read(p)
	if n > 0 {
		i.touch()
	}
	return n, err
}

func (i *idleReader) touch() { i.at.Store(time.Now().UnixNano()) }

func (i *idleReader) last() time.Time { return time.Unix(0, i.at.Load()) }
