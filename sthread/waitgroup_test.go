package sthread_test

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// An Add from zero that nothing orders before a Wait of its group is a
// misuse, as sync.WaitGroup's documentation says and Go's race detector
// reports (a data race between the Add and the Wait, and the panic
// "WaitGroup is reused before previous Wait has returned" when the group is
// reused too early): found by DPOR and by running every schedule, as one
// bug whichever of the two runs first. The same shapes with the Add
// ordered before the Wait are not.
func TestWaitGroupAddConcurrentWithWait(t *testing.T) {
	tests := []struct {
		name   string
		f      func()
		misuse bool
	}{
		{"Add inside the goroutine it counts", func() {
			var wg sthread.WaitGroup
			sthread.Go(func() {
				wg.Add(1)
				defer wg.Done()
			})
			wg.Wait()
		}, true},
		{"a worker starts the next round before the Wait returned", func() {
			var wg sthread.WaitGroup
			wg.Add(1)
			done := sthread.MakeChan[int](0)
			sthread.Go(func() {
				wg.Done()
				wg.Add(1)
				wg.Done()
				done.Close()
			})
			wg.Wait()
			done.Recv()
		}, true},
		{"Add before the go statement, and a second round after the Wait", func() {
			var wg sthread.WaitGroup
			for range 2 {
				wg.Add(1)
				sthread.Go(func() { defer wg.Done() })
			}
			wg.Wait()
			wg.Add(1)
			sthread.Go(func() { defer wg.Done() })
			wg.Wait()
		}, false},
		{"an Add in the goroutine ordered before the Wait by a channel", func() {
			var wg sthread.WaitGroup
			started := sthread.MakeChan[int](0)
			sthread.Go(func() {
				wg.Add(1)
				started.Send(1)
				wg.Done()
			})
			started.Recv()
			wg.Wait()
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, reduce := range []bool{true, false} {
				opts := []sthread.Option{sthread.All()}
				if !reduce {
					opts = append(opts, sthread.NoReduction())
				}
				res, err := sthread.Explore(tt.f, opts...)
				if err != nil {
					t.Fatal(err)
				}
				var misuses []string
				for _, b := range res.Bugs {
					if b.Kind != search.Misuse || !strings.Contains(b.Message, "an Add from zero must happen before the Wait") {
						t.Errorf("unexpected bug (reduction %v): %v %s", reduce, b.Kind, b.Message)
						continue
					}
					misuses = append(misuses, b.Where)
				}
				if want := map[bool]int{true: 1, false: 0}[tt.misuse]; len(misuses) != want || !res.Complete {
					t.Errorf("reduction %v: misuses %v (complete %v), want %d", reduce, misuses, res.Complete, want)
				}
			}
		})
	}
}
