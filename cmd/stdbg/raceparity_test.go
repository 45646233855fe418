package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Racy Go programs that a plain go test -race run reports must be reported
// by stdbg find too (examples/go/plain/raceparity): a select reading a
// field whose channel another goroutine closes and then clears (the
// registration of a channel by its first user ordered it before every
// later user), and a sync.Map Range callback racing with a read after a
// Store (Range and Store were no scheduling points, so the Store never ran
// first). The race is printed on several lines, with both stacks, and
// summed up on stderr.
func TestRaceParity(t *testing.T) {
	t.Parallel()
	pkg := filepath.Join("..", "..", "examples", "go", "plain", "raceparity")
	tests := []struct {
		name string
		// where: the racing lines, in the summary.
		where []string
		// first: the race is in the first schedule run, and found there.
		first bool
	}{
		{"TestSelectOnClearedField", []string{"raceparity.go:24", "raceparity.go:31"}, false},
		{"TestRangeCallbackCounter", []string{"raceparity.go:49", "raceparity.go:55"}, false},
		{"TestLazyInit", []string{"raceparity.go:65", "raceparity.go:67"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := "^" + tt.name + "$"
			// Whether a plain run shows the race depends on how the
			// goroutines happen to run (the Range callback runs only
			// if the Store came first): the test runs 50 times in one
			// process, and one report is enough.
			plain, _ := exec.Command("go", "test", "-race", "-count=50", "-run", run, pkg).CombinedOutput()
			if !strings.Contains(string(plain), "WARNING: DATA RACE") {
				t.Fatalf("go test -race does not report the race in 50 runs any more: the example is wrong\n%s", plain)
			}
			args := []string{"find", "-run", run, pkg}
			if tt.first {
				args = append([]string{"find", "--no-minimise"}, args[1:]...)
			}
			out, errs, code := stdbg(t, args...)
			if tt.first && !strings.Contains(out, "Executions = 1 ") {
				t.Errorf("the race of the first schedule was not found in the first execution:\n%s", out)
			}
			if code != exitBug || !strings.Contains(out, "*** DATA RACE ***\nWARNING: DATA RACE\n") {
				t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
			}
			for _, w := range tt.where {
				if !strings.Contains(errs, w) {
					t.Errorf("the summary on stderr does not name %s:\n%s", w, errs)
				}
			}
		})
	}
}
