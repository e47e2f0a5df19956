//go:build !unix

package watchexec

import "os/exec"

// killGroup: elsewhere the command alone is killed at its timeout.
func killGroup(*exec.Cmd) {}
