package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
)

// ID names this state directory on this host, for the claims a reviewer
// leaves on a server: what tells one's own claims from others', whatever
// the reviewer names (two people may share one). It is stable across
// restarts and says nothing of the host or the path (a digest of both).
func (j *Journal) ID() string {
	host, _ := os.Hostname()
	dir, err := filepath.Abs(j.dir)
	if err != nil {
		dir = j.dir
	}
	sum := sha256.Sum256([]byte("hitl-client\x00" + host + "\x00" + dir))
	return hex.EncodeToString(sum[:8])
}
