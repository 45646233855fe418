package lang_test

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/internal/rt"
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

// A goroutine's call of its test's t is ordered against the end of the
// test and of its subtests, and judged as package testing judges it once
// they ended: a Log goes to the closest test that still runs (and panics
// once none does), a failure panics once its own test ended.
func TestLateCallsInSubtests(t *testing.T) {
	tests := []struct {
		name     string
		call     func(st *testing.T)
		parentOn bool   // the parent waits until the goroutine is done
		want     string // the misuse, "" for none
	}{
		{"Logf after the subtest, parent running", func(st *testing.T) { lang.TestCall(st, "Logf").Logf("late") }, true, ""},
		{"Logf after the subtest and its parent", func(st *testing.T) { lang.TestCall(st, "Logf").Logf("late") }, false,
			"(Log in goroutine after " + t.Name() + "/sub has completed) once no test runs"},
		{"Error after the subtest, parent running", func(st *testing.T) { lang.TestCall(st, "Error").Error("late") }, true,
			"(Fail in goroutine after " + t.Name() + "/sub has completed)"},
	}
	for _, tt := range tests {
		var misuses []string
		res, err := sthread.Explore(func() {
			rt.TestBegins(t, t.Name())
			var outer sthread.WaitGroup
			outer.Add(1)
			body := func(st *testing.T) {
				var wg sthread.WaitGroup
				wg.Add(1)
				sthread.Go(func() {
					defer outer.Done()
					// Counted first: the call may come after
					// the subtest's end.
					wg.Done()
					tt.call(st)
				})
				wg.Wait()
			}
			lang.Run(t, "sub", body)
			if tt.parentOn {
				outer.Wait()
			}
			rt.TestEnds(t, body)
		}, sthread.All(), sthread.NoMinimise())
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for _, b := range res.Bugs {
			if b.Kind == search.Misuse {
				misuses = append(misuses, b.Message)
			} else if b.Kind != search.AssertionFailure {
				t.Errorf("%s: %s", tt.name, b)
			}
		}
		switch {
		case tt.want == "" && len(misuses) > 0:
			t.Errorf("%s: misuse reported: %q", tt.name, misuses)
		case tt.want != "" && (len(misuses) != 1 || !strings.Contains(misuses[0], tt.want)):
			t.Errorf("%s: misuses %q, want one with %q", tt.name, misuses, tt.want)
		}
	}
}
