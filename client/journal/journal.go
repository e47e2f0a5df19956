// Package journal keeps what this machine has decided: the ids of handled
// interrupts (so that nothing is shown twice, across restarts) and an
// append-only audit log of every decision sent.
//
// Both files are shared by every hitl process of the user (CLI, watch, TUI):
// each record is one line written with a single O_APPEND write, and readers
// take the files as they find them.
package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/redact"
)

const (
	handledFile = "handled"
	auditFile   = "audit.jsonl"
)

// Entry is one line of the audit log.
type Entry struct {
	Time        time.Time         `json:"time"`
	Reviewer    string            `json:"reviewer"`
	Server      string            `json:"server"`
	ThreadID    string            `json:"thread_id"`
	InterruptID string            `json:"interrupt_id"`
	Schema      client.Schema     `json:"schema"`
	Decisions   []client.Decision `json:"decisions"`
	// Resume is the exact value sent (null for a breakpoint's continue).
	Resume json.RawMessage `json:"resume"`
	// Outcome is "finished", "interrupted", "failed", "running", or
	// "already-handled", "busy", "error" when the resume was not accepted.
	Outcome string `json:"outcome"`
	RunID   string `json:"run_id,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Journal is the state directory of one user.
type Journal struct {
	dir string

	mu      sync.Mutex
	handled map[string]bool
	size    int64 // bytes of the handled file already read
	redact  func(string) string
}

// Open uses dir (created when missing) as the state directory.
func Open(dir string) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the state directory %s: %w (set XDG_STATE_HOME to a writable place)", dir, err)
	}
	j := &Journal{dir: dir, handled: map[string]bool{}, redact: redact.Text}
	if err := j.reload(); err != nil {
		return nil, err
	}
	return j, nil
}

// SetRedactor makes the audit log hide, in the text fields of every entry
// (the error above all: it may quote a server that echoed a key), what f
// hides: typically the backend's configured secrets (transport.Conn.Redact).
// URL userinfo and credential parameters are hidden whatever f does, also
// before SetRedactor is called. The decisions and the resume value are kept
// as sent: the log's point is to say exactly what went to the server.
func (j *Journal) SetRedactor(f func(string) string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.redact = func(s string) string { return redact.Text(f(s)) }
}

// redacted is e with its text fields through the redactor.
func (j *Journal) redacted(e Entry) Entry {
	j.mu.Lock()
	r := j.redact
	j.mu.Unlock()
	for _, s := range []*string{&e.Reviewer, &e.Server, &e.ThreadID, &e.InterruptID, &e.Outcome, &e.RunID, &e.Error} {
		*s = r(*s)
	}
	e.Schema = client.Schema(r(string(e.Schema)))
	return e
}

// Dir is the state directory.
func (j *Journal) Dir() string { return j.dir }

// reload reads ids that other processes appended since the last read.
func (j *Journal) reload() error {
	f, err := os.Open(filepath.Join(j.dir, handledFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read handled ids: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(j.size, 0); err != nil {
		return err
	}
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			// A partial last line is another process mid-write: read it next time.
			break
		}
		j.size += int64(len(line))
		if id := strings.TrimSpace(line); id != "" {
			j.handled[id] = true
		}
	}
	return nil
}

// IsHandled reports whether id was handled from this machine.
func (j *Journal) IsHandled(id string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.reload()
	return j.handled[id]
}

// Handled returns the set of handled ids (a copy).
func (j *Journal) Handled() map[string]bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.reload()
	out := make(map[string]bool, len(j.handled))
	for id := range j.handled {
		out[id] = true
	}
	return out
}

// MarkHandled records id as handled.
func (j *Journal) MarkHandled(id string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.handled[id] {
		return nil
	}
	if err := appendLine(filepath.Join(j.dir, handledFile), []byte(id)); err != nil {
		return err
	}
	j.handled[id] = true
	return nil
}

// Record appends e to the audit log, redacted (see SetRedactor).
func (j *Journal) Record(e Entry) error {
	e = j.redacted(e)
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	if e.Resume == nil {
		e.Resume = json.RawMessage("null")
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return appendLine(filepath.Join(j.dir, auditFile), b)
}

// History returns the audit log, newest first, redacted like Record (lines
// written by older versions may hold what is hidden now). Lines that do not
// parse (a crash mid-write) are skipped.
func (j *Journal) History() ([]Entry, error) {
	b, err := os.ReadFile(filepath.Join(j.dir, auditFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, line := range bytes.Split(b, []byte("\n")) {
		var e Entry
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &e) != nil {
			continue
		}
		out = append(out, j.redacted(e))
	}
	for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	return out, nil
}

// Last returns the newest audit entry for interrupt id.
func (j *Journal) Last(id string) (Entry, bool) {
	h, err := j.History()
	if err != nil {
		return Entry{}, false
	}
	for _, e := range h {
		if e.InterruptID == id {
			return e, true
		}
	}
	return Entry{}, false
}

func appendLine(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	line := append(append([]byte{}, b...), '\n')
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return f.Close()
}
