package journal

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Mark is the state of what a listing is taken through on this machine:
// the handled ids (Sift) and the audit log (Unresolved). A mark taken
// before a listing was sifted and one taken later are equal when nothing
// another process (or this one) wrote since changes what Sift and
// Unresolved would answer for the same listing: a reader woken by its own
// timer (the TUI's periodic read) need not take the listing again.
//
// The sightings are not part of it: another process's sightings change
// nothing this one shows. Neither are the drafts: a listing does not read
// them.
type Mark struct {
	handled, audit fileMark
	// reads moves when the audit log is parsed again (it changed, or a
	// new redactor reads it otherwise).
	reads int
	// sending is how many decisions other live processes are sending:
	// Unresolved leaves them out while it lasts, so its answer changes
	// when one ends (the process dies, inFlight passes) even though the
	// file does not.
	sending int
}

// fileMark is a file's size and modification time (zero: no file). Both
// files are only appended to.
type fileMark struct {
	size, mod int64
}

// Mark says the state of the handled ids and the audit log now (it reads
// the audit log when it changed, as History does; the next History does
// not read it again). An error says the state cannot be told: read as
// usual.
func (j *Journal) Mark() (Mark, error) {
	var m Mark
	var err error
	if m.handled, err = markOf(filepath.Join(j.dir, handledFile)); err != nil {
		return Mark{}, err
	}
	h := &j.hist
	h.Lock()
	defer h.Unlock()
	if _, err := j.history(); err != nil {
		return Mark{}, err
	}
	if h.cached {
		m.audit = fileMark{size: h.size, mod: h.mod.UnixNano()}
	}
	m.reads = h.reads
	for _, e := range h.others {
		if sendingElsewhere(e) {
			m.sending++
		}
	}
	return m, nil
}

func markOf(path string) (fileMark, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileMark{}, nil
	}
	if err != nil {
		return fileMark{}, err
	}
	return fileMark{size: st.Size(), mod: st.ModTime().UnixNano()}, nil
}
