package sthread_test

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// A goroutine that logs or fails through the test's t after the checked
// function returned is a misuse (go test would panic); before the return,
// or after the function waited for it, it is not.
func TestLateTestCalls(t *testing.T) {
	tests := []struct {
		name   string
		call   func(tb testing.TB)
		wait   bool
		misuse string
	}{
		{"Logf, not waited for", func(tb testing.TB) { tb.Logf("done") }, false, "t.Logf called by goroutine 2 after"},
		{"Log, not waited for", func(tb testing.TB) { tb.Log("done") }, false, "t.Log called by goroutine 2 after"},
		{"Errorf, not waited for", func(tb testing.TB) { tb.Errorf("bad") }, false, "go test panics (Fail in goroutine after"},
		{"Logf, waited for", func(tb testing.TB) { tb.Logf("done") }, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := sthread.Explore(func() {
				tb := sthread.TB(t)
				var wg sthread.WaitGroup
				wg.Add(1)
				sthread.Go(func() {
					// A goroutine runs up to its first
					// scheduling point when it is started.
					sthread.Yield()
					tt.call(tb)
					wg.Done()
				})
				if tt.wait {
					wg.Wait()
				}
			}, sthread.All())
			if err != nil {
				t.Fatal(err)
			}
			var misuse []string
			for _, b := range res.Bugs {
				if b.Kind == search.Misuse {
					misuse = append(misuse, b.Message)
				}
			}
			switch {
			case tt.misuse == "" && len(misuse) > 0:
				t.Errorf("misuse reported: %q", misuse)
			case tt.misuse != "" && (len(misuse) != 1 || !strings.Contains(misuse[0], tt.misuse)):
				t.Errorf("misuse %q, want one with %q", misuse, tt.misuse)
			}
		})
	}
}
