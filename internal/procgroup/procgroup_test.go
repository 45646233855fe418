package procgroup_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stdbg/stdbg/internal/procgroup"
)

// TestKillAfterReap checks that the processes a leader left running end
// with the group once the leader has been reaped, and that killing a
// group with none left, or no group at all, is no error.
func TestKillAfterReap(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child")
	// The leader starts a child that would run for a minute, says its
	// pid, and ends without waiting for it.
	cmd := exec.Command("sh", "-c", `sleep 60 & echo $! > "$1"`, "sh", pidFile)
	procgroup.Lead(cmd)
	if err := cmd.Run(); err != nil {
		t.Fatalf("running the leader: %v", err)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("the child's pid %q: %v", data, err)
	}
	if err := syscall.Kill(child, 0); err != nil {
		t.Fatalf("the child left running is not there before the kill: %v", err)
	}
	if err := procgroup.Kill(cmd.Process.Pid); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !gone(child) {
		if time.Now().After(deadline) {
			t.Fatalf("the child %d is still running 30 s after its group was killed", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := procgroup.Kill(cmd.Process.Pid); err != nil {
		t.Errorf("Kill of a group with none left: %v", err)
	}
	if err := procgroup.Kill(0); err != nil {
		t.Errorf("Kill(0): %v", err)
	}
}

// gone reports whether the process pid has ended: not there, or a zombie
// waiting for its parent (init, which reaps it when it gets to it).
func gone(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) state ...
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || strings.HasPrefix(s[i+1:], " Z")
}

// TestCancel checks that a command's context ends its whole group.
func TestCancel(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child")
	cmd := exec.Command("sh", "-c", `sleep 60 & echo $! > "$1"; wait`, "sh", pidFile)
	procgroup.Lead(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var child int
	deadline := time.Now().Add(30 * time.Second)
	for child == 0 {
		if data, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(data), "\n") {
			child, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		if time.Now().After(deadline) {
			t.Fatal("the leader did not say its child's pid within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := procgroup.Cancel(cmd)(); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	cmd.Wait()
	for !gone(child) {
		if time.Now().After(deadline) {
			t.Fatalf("the child %d is still running after its group was cancelled", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
