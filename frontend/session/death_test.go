package session

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// dyingModule is a module of one plain Go test whose second execution in a
// process kills the process, silently (SIGKILL): a fresh process never
// dies. The first fresh process that runs the test after a death (the
// replay of the schedule that killed it) leaves a mark if it goes on past
// the step in which the process died.
var dyingModule = map[string]string{
	"go.mod": "module example.com/dies\n\ngo 1.22\n",
	"dies_test.go": `package dies

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
)

func TestDies(t *testing.T) {
	dir := os.Getenv("DIES_DIR")
	n, _ := strconv.Atoi(os.Getenv("DIES_EXECUTIONS"))
	os.Setenv("DIES_EXECUTIONS", strconv.Itoa(n+1))
	var mu sync.Mutex
	done := make(chan bool)
	go func() {
		mu.Lock()
		mu.Unlock()
		done <- true
	}()
	mu.Lock()
	replaying := false
	switch n {
	case 1:
		os.WriteFile(filepath.Join(dir, "died"), nil, 0o644)
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	case 0:
		replaying = os.Rename(filepath.Join(dir, "died"), filepath.Join(dir, "replayed")) == nil
	}
	mu.Unlock()
	if replaying {
		os.WriteFile(filepath.Join(dir, "past"), nil, 0o644)
	}
	<-done
}
`,
}

// A search inside the target whose process died in a schedule that a
// fresh process runs without dying says so, with how the process died,
// and searches again with a fresh process per execution; the fresh process
// that ran the schedule ran it and no further (it ran on to the depth
// bound: seconds of a budget on a long schedule).
func TestTargetDeathNotTheSchedules(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir, marks := t.TempDir(), t.TempDir()
	for name, text := range dyingModule {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("DIES_DIR", marks)
	got := findIn(t, dir, "TestDies", false)
	if len(got.bugs) > 0 || !got.complete || got.inTarget {
		t.Errorf("bugs %v, complete %v, in the target %v; want none, complete, from here", got.bugs, got.complete, got.inTarget)
	}
	said := slices.ContainsFunc(got.notes, func(n string) bool {
		return strings.HasPrefix(n, "the target process died during schedule ") &&
			strings.Contains(n, "(signal: killed, with nothing on its standard error), but a fresh process ran that schedule to its end without dying")
	})
	if !said {
		t.Errorf("the death is not said: %q", got.notes)
	}
	if _, err := os.Stat(filepath.Join(marks, "replayed")); err != nil {
		t.Errorf("the schedule was not replayed in a fresh process: %v", err)
	}
	if _, err := os.Stat(filepath.Join(marks, "past")); err == nil {
		t.Errorf("the replay of the schedule went on past it")
	}
}
