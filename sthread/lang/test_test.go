package lang_test

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/lang"
)

// Outside stdbg, CheckTest runs the test's body once, as go test would.
func TestCheckTestOutsideStdbg(t *testing.T) {
	runs := 0
	lang.CheckTest(t, func() { runs++ })
	if runs != 1 {
		t.Errorf("the body ran %d times, want once", runs)
	}
}

// TestCall gives t back outside a check; under one, a failure through it
// ends the execution as an assertion failure with its message, and a call
// after the checked function returned is a misuse.
func TestTestCall(t *testing.T) {
	if got := lang.TestCall(t, "Logf"); got != testing.TB(t) {
		t.Errorf("outside a check, TestCall gives %T, want t", got)
	}
	tests := []struct {
		name string
		f    func()
		kind search.Kind
		want string
	}{
		{"Errorf", func() { lang.TestCall(t, "Errorf").Errorf("bad %d", 1) }, search.AssertionFailure, "bad 1"},
		{"Logf after the return", func() {
			sthread.Go(func() { lang.TestCall(t, "Logf").Logf("late") })
		}, search.Misuse, "t.Logf called by goroutine 2 after " + t.Name() + " returned"},
	}
	for _, tt := range tests {
		res, err := sthread.Explore(tt.f, sthread.All())
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		found := false
		for _, b := range res.Bugs {
			found = found || b.Kind == tt.kind && strings.Contains(b.Message, tt.want)
		}
		if !found {
			t.Errorf("%s: no %s with %q among %d bugs", tt.name, tt.kind, tt.want, len(res.Bugs))
		}
	}
}
