package goexamples

import (
	"errors"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// firstError runs the jobs and returns the first error. Every failing job
// closes done to tell the others to stop; when two jobs fail, done is
// closed twice, which panics, in Go as under stdbg.
func firstError(jobs ...func(done sthread.Chan[struct{}]) error) error {
	done := sthread.MakeChan[struct{}](0)
	var mu sthread.Mutex
	var first error
	var wg sthread.WaitGroup
	for _, job := range jobs {
		wg.Go(func() {
			if err := job(done); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				done.Close() // should be done once
			}
		})
	}
	wg.Wait()
	return first
}

func doubleClose() {
	failing := func(sthread.Chan[struct{}]) error { return errors.New("disk full") }
	firstError(failing, failing)
}

func TestDoubleClose(t *testing.T) {
	expectBug(t, doubleClose, search.Crash, "panic: close of closed channel done", "done.Close()")
}
