package journal

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hitl-sh/hitl/client"
)

const (
	seenFile = "seen.jsonl"
	// maxSeen bounds the file of sightings: past it, the older half goes.
	maxSeen = 2 << 20
)

// Sighting is where an interrupt was seen pending: enough to look it up on
// its thread once it is no longer listed, and tell "answered" (and by whom)
// from "never existed".
type Sighting struct {
	ID          string    `json:"id"`
	ThreadID    string    `json:"thread_id"`
	GraphID     string    `json:"graph_id,omitempty"`
	AssistantID string    `json:"assistant_id,omitempty"`
	Title       string    `json:"title,omitempty"`
	Server      string    `json:"server,omitempty"`
	Time        time.Time `json:"time"`
}

// Interrupt is the sighting as an interrupt (without its payload).
func (s Sighting) Interrupt() client.Interrupt {
	it := client.Interrupt{ID: s.ID, ThreadID: s.ThreadID, GraphID: s.GraphID, AssistantID: s.AssistantID, Server: s.Server, Raw: json.RawMessage("null")}
	it.Title = s.Title
	return it
}

// Saw records interrupts seen pending (those not recorded yet).
func (j *Journal) Saw(its []client.Interrupt) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.seen == nil {
		j.seen = map[string]bool{}
		for _, s := range j.readSeen() {
			j.seen[s.ID] = true
		}
	}
	var lines [][]byte
	var ids []string
	now := time.Now().UTC()
	for _, it := range its {
		if j.seen[it.ID] || slices.Contains(ids, it.ID) {
			continue
		}
		ids = append(ids, it.ID)
		// The server's words, kept short (a title may be a 10 MB prompt) and
		// without the configured secrets.
		r := j.redact
		b, err := json.Marshal(Sighting{ID: it.ID, ThreadID: r(it.ThreadID), GraphID: r(clip(it.GraphID)), AssistantID: r(clip(it.AssistantID)),
			Title: r(clip(it.Title)), Server: r(it.Server), Time: now})
		if err != nil {
			return err
		}
		lines = append(lines, b)
	}
	if len(lines) == 0 {
		return nil
	}
	path := filepath.Join(j.dir, seenFile)
	if st, err := os.Stat(path); err == nil && st.Size() > maxSeen {
		j.trimSeen(path)
	}
	// Marked seen once written: what could not be written is tried again
	// at the next listing.
	if err := appendLines(path, lines, false); err != nil {
		return err
	}
	for _, id := range ids {
		j.seen[id] = true
	}
	return nil
}

// Sightings returns the recorded sightings whose id starts with prefix
// (in any case).
func (j *Journal) Sightings(prefix string) []Sighting {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []Sighting
	seen := map[string]bool{}
	prefix = strings.ToLower(prefix) // ids are typed in any case (opencode's have capitals)
	for _, s := range j.readSeen() {
		if strings.HasPrefix(strings.ToLower(s.ID), prefix) && !seen[s.ID] {
			seen[s.ID] = true
			out = append(out, s)
		}
	}
	return out
}

// SeenBefore says which of ids were seen pending before t: after a run
// pauses, they are the ones that were already waiting, not new questions.
func (j *Journal) SeenBefore(ids []string, t time.Time) map[string]bool {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	out := map[string]bool{}
	for _, s := range j.readSeen() {
		if want[s.ID] && s.Time.Before(t) {
			out[s.ID] = true
		}
	}
	return out
}

func (j *Journal) readSeen() []Sighting {
	f, err := os.Open(filepath.Join(j.dir, seenFile))
	if errors.Is(err, fs.ErrNotExist) || err != nil {
		return nil
	}
	defer f.Close()
	var out []Sighting
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		var s Sighting
		// A line too long to be a sighting (older versions kept whole
		// titles) is skipped, not the end of the file.
		if len(line) <= maxSightingLine && json.Unmarshal(line, &s) == nil && s.ID != "" {
			out = append(out, s)
		}
		if err != nil {
			return out
		}
	}
}

// maxSightingLine bounds a line of the sightings file worth decoding.
const maxSightingLine = 64 << 10

// clip keeps at most 200 bytes of s, cut at a character's start, marked.
func clip(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// trimSeen keeps the newer half of the sightings.
func (j *Journal) trimSeen(path string) {
	all := j.readSeen()
	keep := all[len(all)/2:]
	var b strings.Builder
	for _, s := range keep {
		line, _ := json.Marshal(s)
		b.Write(line)
		b.WriteByte('\n')
	}
	tmp := path + ".tmp"
	if os.WriteFile(tmp, []byte(b.String()), 0o600) == nil {
		_ = os.Rename(tmp, path)
	}
}
