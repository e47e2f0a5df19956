//go:build !unix

package journal

// alive cannot tell on this system: an intent is treated as abandoned, and
// reconciling it reads the server (a send still in progress is found).
func alive(int) bool { return false }
