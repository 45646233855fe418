// Package procgroup ends the process group of a process that stdbg
// started.
//
// Every process of a checked program (an execution, the search inside a
// Go test binary, the run of a test as go test runs it) leads a process
// group of its own, so that what it starts and does not wait for (a
// test's peer, a server, a daemon) can be ended with it. Kill is that
// end, written once for every place that starts such a process.
package procgroup

import (
	"os/exec"
	"syscall"
)

// Lead makes cmd, not yet started, lead a process group of its own: the
// processes it starts join the group unless they leave it (setsid).
func Lead(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// Kill kills every process of the group that the process pid leads (pid
// <= 1: nothing; the group of init is no program's, and -1 would signal
// every process). Called when the leader is reaped, it reaches the
// processes the leader left running and no other program: a group's id
// stays reserved while a process is in it, and a group with none left is
// not there to kill (ESRCH, which is not an error here). Called before
// the reap, it kills the leader too.
func Kill(pid int) error {
	if pid <= 1 {
		return nil
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}

// Cancel is an exec.Cmd's Cancel for a command that leads a group
// (Lead): the command's context ends the whole group, not the leader
// alone.
func Cancel(cmd *exec.Cmd) func() error {
	return func() error { return Kill(cmd.Process.Pid) }
}
