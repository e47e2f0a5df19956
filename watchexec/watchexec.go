// Package watchexec is hitl watch --exec: a command run once per new
// interrupt, with the interrupt's JSON (the line watch --json prints) on
// its stdin, for Slack, a pager, a phone. The command line is split into
// argv here, without a shell: no byte of a payload ever reaches a shell,
// and `;`, `|`, `$(…)` in the command line are plain characters of an
// argument. A shell runs only when asked (--exec-shell), and even then the
// payload comes on stdin and in the environment, never in the command
// line. A command that fails, or that outlives its timeout (killed, with
// its children), is reported on stderr; watch goes on.
package watchexec

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
)

const (
	// execWorkers is how many commands run at once: a burst of interrupts
	// (watch's first listing) does not start hundreds of processes.
	execWorkers = 4
	// execKeep bounds what is kept of a command's output (only its
	// stderr's first lines are shown, when it fails).
	execKeep = 64 << 10
	// execLines is how many lines of a failed command's stderr are shown.
	execLines = 5
)

// Runner runs the command for each interrupt handed to it.
type Runner struct {
	argv    []string
	line    string // the command as given, for messages
	timeout time.Duration
	stderr  io.Writer
	environ func() []string

	queue chan execJob
	wg    sync.WaitGroup
	errMu sync.Mutex // one report at a time on stderr

	// ran remembers, per command line, the interrupts the command ran
	// for, so that a watch started again does not run it for the whole
	// backlog (a notifier would post everything again).
	ran *execMemory
	// skipped counts interrupts not run again; reported, those said.
	skipped, reported int
}

// execMemory is the file of interrupt ids a command ran for: one id a
// line, in the state directory, named by a digest of the command line.
type execMemory struct {
	mu   sync.Mutex
	path string
	ids  map[string]bool
}

// openExecMemory reads the memory of the command line (none yet: empty).
func openExecMemory(stateDir, line string) (*execMemory, error) {
	sum := sha256.Sum256([]byte(line))
	m := &execMemory{path: filepath.Join(stateDir, "exec", hex.EncodeToString(sum[:8])+".ran"), ids: map[string]bool{}}
	b, err := os.ReadFile(m.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("watch --exec: cannot read what it already ran for (%s): %w", m.path, err)
	}
	for _, id := range strings.Fields(string(b)) {
		m.ids[id] = true
	}
	return m, nil
}

func (m *execMemory) has(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ids[id]
}

// add remembers id; a failure to write is returned (the command may run
// again for it at the next start).
func (m *execMemory) add(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ids[id] {
		return nil
	}
	m.ids[id] = true
	if err := os.MkdirAll(filepath.Dir(m.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(m.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(id + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReportSkipped says, once per batch, for how many interrupts the command
// was not run again.
func (h *Runner) ReportSkipped() {
	if h == nil || h.skipped == h.reported {
		return
	}
	n := h.skipped - h.reported
	h.reported = h.skipped
	h.errMu.Lock()
	defer h.errMu.Unlock()
	fmt.Fprintf(h.stderr, "hitl watch: --exec not run again for %d %s it already ran for (an earlier watch with this command; remembered in %s)\n",
		n, plural(n, "interrupt", "interrupts"), h.ran.path)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

type execJob struct {
	it   client.Interrupt
	json []byte
}

// New checks the command line: command is split into argv without
// a shell; shellCmd (--exec-shell) runs under /bin/sh -c. At most one of
// them is set; neither: no hook (nil). environ is watch's environment,
// which the command gets without hitl's credentials (nil: os.Environ).
func New(command, shellCmd string, timeout time.Duration, stderr io.Writer, environ func() []string) (*Runner, error) {
	var argv []string
	switch {
	case command != "" && shellCmd != "":
		return nil, errors.New("give --exec or --exec-shell, not both")
	case command != "":
		var err error
		if argv, err = splitArgs(command); err != nil {
			return nil, fmt.Errorf("--exec: %v", err)
		}
		if len(argv) == 0 {
			return nil, errors.New("--exec: no command")
		}
	case shellCmd != "":
		if strings.TrimSpace(shellCmd) == "" {
			return nil, errors.New("--exec-shell: no command")
		}
		argv = []string{"/bin/sh", "-c", shellCmd}
	default:
		return nil, nil
	}
	if timeout <= 0 {
		return nil, errors.New("--exec-timeout must be more than 0")
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, fmt.Errorf("--exec: cannot run %q: %v", argv[0], err)
	}
	if environ == nil {
		environ = os.Environ
	}
	return &Runner{argv: argv, line: command + shellCmd, timeout: timeout, stderr: stderr, environ: environ}, nil
}

// Line is the command as given, for messages (and, with the server, the
// name of what it ran for: Remember).
func (h *Runner) Line() string { return h.line }

// Remember makes the command run once per interrupt across watches: what
// it ran for is kept in stateDir under key (the command line and the
// server: the same command watching another server has its own).
func (h *Runner) Remember(stateDir, key string) error {
	m, err := openExecMemory(stateDir, key)
	if err != nil {
		return err
	}
	h.ran = m
	return nil
}

// Start runs the workers until ctx ends; stop waits for them.
func (h *Runner) Start(ctx context.Context) {
	h.queue = make(chan execJob, 4096)
	for range execWorkers {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			for {
				select {
				case <-ctx.Done():
					return
				case j, ok := <-h.queue:
					if !ok {
						return
					}
					h.run(ctx, j)
				}
			}
		}()
	}
}

// Stop lets the commands under way end (ctx ended: they are killed) and
// waits for them; what is queued is dropped.
func (h *Runner) Stop() {
	close(h.queue)
	h.wg.Wait()
}

// add queues the command for one interrupt; payload is its JSON line.
func (h *Runner) add(ctx context.Context, it client.Interrupt, payload []byte) {
	select {
	case h.queue <- execJob{it: it, json: payload}:
	case <-ctx.Done():
	}
}

// env is the command's environment: watch's own, and the interrupt's
// names, made inert (one line, no control characters).
func (h *Runner) env(it client.Interrupt) []string {
	vars := []struct{ k, v string }{
		{"HITL_INTERRUPT_ID", it.ID}, {"HITL_THREAD_ID", it.ThreadID}, {"HITL_GRAPH_ID", it.GraphID},
		{"HITL_ASSISTANT_ID", it.AssistantID}, {"HITL_SCHEMA", string(it.Schema)}, {"HITL_TITLE", it.Title},
		{"HITL_SUMMARY", present.Summary(it)}, {"HITL_SERVER", it.Server},
	}
	// The command is the reviewer's, but hitl's own credentials stay home:
	// a notifier has no business with the server's API key.
	var out []string
	for _, kv := range h.environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !credentialVar(name) {
			out = append(out, kv)
		}
	}
	for _, x := range vars {
		out = append(out, x.k+"="+inert.Line(x.v))
	}
	return out
}

// credentialVar reports whether an environment variable is one hitl reads
// credentials from (the SDKs' names and hitl's own).
func credentialVar(name string) bool {
	switch name {
	case "HITL_API_KEY", "HITL_BEARER_TOKEN", "LANGGRAPH_API_KEY", "LANGSMITH_API_KEY", "LANGCHAIN_API_KEY":
		return true
	}
	return false
}

// run runs the command once, and reports a failure.
func (h *Runner) run(ctx context.Context, j execJob) {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.argv[0], h.argv[1:]...) //nolint:gosec // the user's own command, split without a shell
	cmd.Stdin = bytes.NewReader(j.json)
	var stderr, stdout capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = h.env(j.it)
	killGroup(cmd) // at the timeout, the command and what it started
	cmd.WaitDelay = 2 * time.Second
	began := time.Now()
	err := cmd.Run()
	if h.ran != nil && ctx.Err() != context.Canceled {
		// Ran (or failed, or was killed at its timeout): not again for
		// this interrupt. One stopped because watch ends runs next time.
		if merr := h.ran.add(j.it.ID); merr != nil {
			h.errMu.Lock()
			fmt.Fprintf(h.stderr, "hitl watch: cannot remember that the command ran for %s (%v): it may run again at the next start\n", inert.Line(present.ShortID(j.it.ID)), merr)
			h.errMu.Unlock()
		}
	}
	if err == nil {
		return
	}
	took := time.Since(began).Round(10 * time.Millisecond)
	var why string
	var ee *exec.ExitError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		why = fmt.Sprintf("killed after %s (--exec-timeout %s)", took, h.timeout)
	case ctx.Err() != nil:
		why = "stopped: watch is ending"
	case errors.As(err, &ee):
		why = fmt.Sprintf("%s after %s", ee.ProcessState.String(), took)
	default:
		why = err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "hitl watch: the command for %s failed: %s\n", inert.Line(present.ShortID(j.it.ID)), why)
	if lines := stderr.firstLines(execLines); len(lines) > 0 {
		for _, l := range lines {
			b.WriteString("  | " + inert.Line(l) + "\n")
		}
	}
	h.errMu.Lock()
	defer h.errMu.Unlock()
	_, _ = io.WriteString(h.stderr, b.String())
}

// capped keeps the first execKeep bytes written to it and drops the rest
// (the command is never blocked on a full pipe).
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := execKeep - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	if c.buf.Len() >= execKeep {
		c.cut = true
	}
	return len(p), nil
}

func (c *capped) firstLines(n int) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	text := strings.TrimRight(c.buf.String(), "\n")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("… (%d more lines)", len(lines)-n))
	} else if c.cut {
		lines = append(lines, "… (cut)")
	}
	return lines
}

// splitArgs splits a command line into argv the way a POSIX shell splits
// words, and does nothing else: 'single quotes' keep everything,
// "double quotes" keep everything but \" \\ \$ \` (backslash-escaped), a
// backslash outside quotes keeps the next character. Nothing is expanded
// ($VAR, ~, globs) and nothing is an operator (; | & > < $(…) are
// characters of a word).
func splitArgs(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '\'':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, errors.New("a ' is not closed")
			}
			cur.WriteString(string(rs[i+1 : j]))
			i = j
		case r == '"':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[j+1]) {
					j++
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, errors.New(`a " is not closed`)
			}
			i = j
		case r == '\\':
			inWord = true
			if i+1 == len(rs) {
				return nil, errors.New("a \\ ends the command")
			}
			i++
			cur.WriteRune(rs[i])
		default:
			inWord = true
			cur.WriteRune(r)
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// Notify queues the command for it, with the JSON line watch --json
// prints for it.
func (h *Runner) Notify(ctx context.Context, it client.Interrupt) error {
	if h.ran != nil && h.ran.has(it.ID) {
		h.skipped++
		return nil
	}
	var buf bytes.Buffer
	if err := present.WriteJSON(&buf, it, false); err != nil {
		return err
	}
	h.add(ctx, it, buf.Bytes())
	return nil
}
