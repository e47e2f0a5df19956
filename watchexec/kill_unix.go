//go:build unix

package watchexec

import (
	"os/exec"
	"syscall"
)

// killGroup makes the command a process group of its own, killed whole
// when its context ends: a shell's children (sleep, curl) go with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
