package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

const draftsFile = "drafts.json"

// SaveDrafts keeps the reviewer's unsent work (opaque to the journal) so
// that quitting, a dropped connection or a crash does not lose it. It
// replaces the file whole (write, sync, rename).
func (j *Journal) SaveDrafts(b []byte) error {
	path := filepath.Join(j.dir, draftsFile)
	tmp, err := os.CreateTemp(j.dir, draftsFile+".*")
	if err != nil {
		return fmt.Errorf("cannot save drafts: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot save drafts: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot save drafts: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot save drafts: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot save drafts: %w", err)
	}
	return nil
}

// LoadDrafts returns what SaveDrafts kept (nil when nothing was).
func (j *Journal) LoadDrafts() ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(j.dir, draftsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}
