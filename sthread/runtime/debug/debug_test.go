package debug_test

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/lang"
	"github.com/stdbg/stdbg/sthread/runtime/debug"
)

// The stack a checked goroutine prints holds the program's frames only,
// and ends with the go statement that created it, as in Go: none of
// stdbg's frames (its trampoline, the worker that runs it).
func TestStackHidesStdbg(t *testing.T) {
	var stack string
	res, err := sthread.Explore(func() {
		done := make(chan struct{})
		sthread.Go(func() {
			stack = string(debug.Stack())
			lang.ChanClose(done)
		})
		lang.ChanRecv(done)
	})
	if err != nil || len(res.Bugs) > 0 {
		t.Fatal(err, res.Bugs)
	}
	lines := strings.Split(strings.TrimSpace(stack), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "goroutine ") || lines[1] != "runtime/debug.Stack()" ||
		!strings.HasPrefix(lines[3], "github.com/stdbg/stdbg/sthread/runtime/debug_test.TestStackHidesStdbg.func1.1(") ||
		!strings.HasPrefix(lines[5], "created by github.com/stdbg/stdbg/sthread/runtime/debug_test.TestStackHidesStdbg.func1 in goroutine ") ||
		!strings.Contains(lines[6], "debug_test.go:19") {
		t.Errorf("the goroutine's stack:\n%s\nwant debug.Stack's frame, the goroutine's function, and the go statement that created it", stack)
	}
}
