// Package journal keeps what this machine has decided: the ids of handled
// interrupts (so that nothing is shown twice, across restarts) and an
// append-only audit log of every decision.
//
// The audit log is written ahead: a decision's intent (the exact resume
// value, who, when, its decision id) is on disk, synced, before anything
// is sent, and its outcome is appended once known. An intent without an
// outcome is a decision whose fate is unknown (the process died, the
// network broke): it is reconciled against the server at the next start.
//
// Both files are shared by every hitl process of the user (CLI, watch, TUI):
// each record is one whole line written with a single O_APPEND write, and
// readers repair a torn last line (a crash mid-write) instead of letting it
// swallow the next record.
package journal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/redact"
)

const (
	handledFile = "handled"
	auditFile   = "audit.jsonl"
)

// Journal is the state directory of one user.
type Journal struct {
	dir string

	mu      sync.Mutex
	handled map[string]bool // this machine's decision answered them
	// elsewhere: this machine tried to decide them and found them
	// answered by another decision; left out of listings like handled
	// ones, but never told as this machine's.
	elsewhere map[string]bool
	size      int64 // bytes of the handled file already read
	redact    func(string) string
	seen      map[string]bool // ids in the sightings file
	// deployment names where decisions go (SetDeployment).
	deployment string

	// hist is the audit log as History last read it, kept while the file
	// is unchanged: a reviewer left open asks for the decisions of unknown
	// outcome at every poll, and a long log is not parsed again each time.
	hist struct {
		sync.Mutex
		cached  bool // entries are the file of this size and time
		size    int64
		mod     time.Time
		entries []Entry
		// reads counts the parses of the file (Mark); others are the
		// intents without outcome of other processes (Unresolved leaves
		// them out while their process lives).
		reads  int
		others []Entry
	}
}

// Open uses dir (created when missing) as the state directory.
func Open(dir string) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the state directory %s: %w (set XDG_STATE_HOME to a writable place)", dir, err)
	}
	j := &Journal{dir: dir, handled: map[string]bool{}, elsewhere: map[string]bool{}, redact: redact.Text}
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
	j.redact = func(s string) string { return redact.Text(f(s)) }
	j.mu.Unlock()
	j.hist.Lock()         // after: History takes hist, then mu
	j.hist.cached = false // read again through the new redactor
	j.hist.entries = nil
	j.hist.Unlock()
}

// redacted is e with its text fields through the redactor.
func (j *Journal) redacted(e Entry) Entry {
	j.mu.Lock()
	r := j.redact
	j.mu.Unlock()
	for _, s := range []*string{&e.Reviewer, &e.Server, &e.ThreadID, &e.InterruptID, &e.Title, &e.RunID, &e.Error} {
		*s = r(*s)
	}
	if e.Winner != nil {
		w := *e.Winner
		w.Reviewer, w.RunID = r(w.Reviewer), r(w.RunID)
		e.Winner = &w
	}
	return e
}

// reload reads ids that other processes appended since the last read. A
// line "ID" is an interrupt this machine's decision answered, "=ID" one it
// found answered by another decision (hitl before 2026-11 wrote those as
// "ID" too), and "-ID" forgets ID.
func (j *Journal) reload() error {
	f, err := os.Open(filepath.Join(j.dir, handledFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read handled ids: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(j.size, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			// A last line without its newline is another process
			// mid-write, or a crash mid-write: read it once it is whole
			// (the next append repairs a torn one).
			break
		}
		j.size += int64(len(line))
		id := strings.TrimSpace(line)
		switch {
		case id == "":
		case strings.HasPrefix(id, "-"):
			delete(j.handled, decodeID(id[1:]))
			delete(j.elsewhere, decodeID(id[1:]))
		case strings.HasPrefix(id, "="):
			if x := decodeID(id[1:]); !j.handled[x] {
				j.elsewhere[x] = true
			}
		default:
			j.handled[decodeID(id)] = true
			delete(j.elsewhere, decodeID(id))
		}
	}
	return nil
}

// encodeID writes an id as one line of the handled file. Ids come from the
// server: one holding a newline would write a second id (a server could
// hide another interrupt, or with "-ID" bring one back), one with a leading
// "-" would read as a forget ("=", as answered elsewhere). Such bytes,
// spaces and '%' are written %XX;
// the ids servers use (hex, UUIDs) are written as they are.
func encodeID(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c <= ' ' || c >= 0x7f || c == '%' || (i == 0 && (c == '-' || c == '=')) {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// decodeID reads an id written by encodeID.
func decodeID(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if c, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(c))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// IsHandled reports whether a decision sent from this machine answered id.
func (j *Journal) IsHandled(id string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.reload()
	return j.handled[id]
}

// IsElsewhere reports whether this machine found id answered by another
// decision (its own, if it sent one, was refused or not applied).
func (j *Journal) IsElsewhere(id string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.reload()
	return j.elsewhere[id]
}

// Handled returns the ids that decisions sent from this machine answered
// (a copy).
func (j *Journal) Handled() map[string]bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.reload()
	return copySet(j.handled)
}

// Hidden returns the ids listings leave out on this machine (a copy): those
// it handled, and those it found answered elsewhere.
func (j *Journal) Hidden() map[string]bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.reload()
	out := copySet(j.handled)
	for id := range j.elsewhere {
		out[id] = true
	}
	return out
}

func copySet(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for id := range m {
		out[id] = true
	}
	return out
}

// MarkHandled records ids as handled: a decision sent from this machine
// answered them.
func (j *Journal) MarkHandled(ids ...string) error {
	return j.mark(false, ids)
}

// MarkElsewhere records ids as answered by another decision: the server
// has an answer that is not this machine's. They are left out of listings
// (Hidden) but not handled here.
func (j *Journal) MarkElsewhere(ids ...string) error {
	return j.mark(true, ids)
}

func (j *Journal) mark(elsewhere bool, ids []string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.reload()
	var lines [][]byte
	var fresh []string
	for _, id := range ids {
		switch {
		case j.handled[id], elsewhere && j.elsewhere[id]:
			continue // an answer of this machine's stays this machine's
		case elsewhere:
			lines = append(lines, []byte("="+encodeID(id)))
		default:
			lines = append(lines, []byte(encodeID(id)))
		}
		fresh = append(fresh, id)
	}
	if len(lines) == 0 {
		return nil
	}
	if err := appendLines(filepath.Join(j.dir, handledFile), lines, false); err != nil {
		return err
	}
	for _, id := range fresh {
		if elsewhere {
			j.elsewhere[id] = true
		} else {
			j.handled[id] = true
			delete(j.elsewhere, id)
		}
	}
	return nil
}

// Forget makes a hidden id (handled, or answered elsewhere) pending again
// on this machine: it is listed again while the server lists it.
func (j *Journal) Forget(id string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.reload()
	if !j.handled[id] && !j.elsewhere[id] {
		return nil
	}
	if err := appendLines(filepath.Join(j.dir, handledFile), [][]byte{[]byte("-" + encodeID(id))}, false); err != nil {
		return err
	}
	delete(j.handled, id)
	delete(j.elsewhere, id)
	return nil
}

// appendLines appends whole lines with one write. A file whose last line
// was torn (no newline: a crash mid-write) gets the newline first, so the
// torn line stays one bad line instead of swallowing the next record. With
// sync, the data reaches the disk before appendLines returns.
func appendLines(path string, lines [][]byte, sync bool) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	var buf bytes.Buffer
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			buf.WriteByte('\n')
		}
	}
	for _, l := range lines {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			f.Close()
			return fmt.Errorf("cannot write %s to disk: %w", path, err)
		}
	}
	return f.Close()
}
