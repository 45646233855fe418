package sthread_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// recorder is a testing.TB that records what a Check reports.
type recorder struct {
	testing.TB
	name                 string
	errors, fatals, logs []string
}

func (r *recorder) Name() string { return r.name }
func (r *recorder) Helper()      {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Log(args ...any) { r.logs = append(r.logs, fmt.Sprint(args...)) }

func contains(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("missing %q in:\n%s", w, text)
		}
	}
}

func TestCheckReportsBug(t *testing.T) {
	rec := &recorder{TB: t, name: "TestDeadly/two goroutines"}
	sthread.Check(rec, deadlyEmbrace, sthread.NoSave()) // in the package directory: write nothing
	if len(rec.errors) != 1 || len(rec.fatals) != 0 {
		t.Fatalf("errors %q, fatals %q", rec.errors, rec.fatals)
	}
	contains(t, rec.errors[0], "*** DEADLOCK DETECTED ***", "Path = 1;1;2;2", "a.Lock()",
		"Replay: STDBG_REPLAY_SCHEDULE='1;1;2;2' go test -run '^TestDeadly$/^two goroutines$' ./sthread",
		"Executions = ")
}

func TestCheckClean(t *testing.T) {
	rec := &recorder{TB: t, name: "TestClean"}
	sthread.Check(rec, func() {
		var mu sthread.Mutex
		n := 0
		sthread.Go(func() { mu.Lock(); n++; mu.Unlock() })
		mu.Lock()
		n++
		mu.Unlock()
	})
	if len(rec.errors)+len(rec.fatals) != 0 {
		t.Errorf("errors %q, fatals %q", rec.errors, rec.fatals)
	}
}

func TestCheckAll(t *testing.T) {
	res, err := sthread.Explore(func() {
		// Two senders, one receive: the other sender leaks; when the
		// first value is 1, the function unlocks a mutex it does not
		// hold.
		var mu sthread.Mutex
		ch := sthread.MakeChan[int](0)
		sthread.Go(func() { ch.Send(1) })
		sthread.Go(func() { ch.Send(2) })
		if ch.Recv() == 1 {
			mu.Unlock()
		}
	}, sthread.All())
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[search.Kind]bool{}
	for _, b := range res.Bugs {
		kinds[b.Kind] = true
	}
	if !kinds[search.Misuse] || !kinds[search.Leak] || len(res.Bugs) < 2 {
		t.Errorf("bugs %v, want a misuse and a leak", res.Bugs)
	}
}

func TestCheckReplayEnvironment(t *testing.T) {
	t.Setenv(sthread.ReplayEnv, "1;1;2;2")
	rec := &recorder{TB: t, name: "TestDeadly"}
	sthread.Check(rec, deadlyEmbrace)
	if len(rec.errors) != 1 {
		t.Fatalf("errors %q, fatals %q", rec.errors, rec.fatals)
	}
	contains(t, rec.errors[0], `replaying "1;1;2;2"`, "DEADLOCK", "Path = 1;1;2;2")

	t.Setenv(sthread.ReplayEnv, "Path = 1;1;1")
	rec = &recorder{TB: t, name: "TestDeadly"}
	sthread.Check(rec, deadlyEmbrace)
	if len(rec.errors)+len(rec.fatals) != 0 || len(rec.logs) != 1 {
		t.Fatalf("clean schedule: errors %q, fatals %q, logs %q", rec.errors, rec.fatals, rec.logs)
	}
	contains(t, rec.logs[0], `replayed "Path = 1;1;1"`, "No property violation found.", "Path = 1;1;1;1;1;1")

	t.Setenv(sthread.ReplayEnv, "1;7")
	rec = &recorder{TB: t, name: "TestDeadly"}
	sthread.Check(rec, deadlyEmbrace)
	if len(rec.fatals) != 1 {
		t.Fatalf("bad schedule: errors %q, fatals %q", rec.errors, rec.fatals)
	}
	contains(t, rec.fatals[0], "step 2: thread 7 does not exist")
}

func TestReplay(t *testing.T) {
	rec := &recorder{TB: t, name: "TestReplay"}
	sthread.Replay(rec, "1;1;2;2", deadlyEmbrace)
	if len(rec.errors) != 1 {
		t.Fatalf("errors %q", rec.errors)
	}
	rec = &recorder{TB: t, name: "TestReplay"}
	sthread.Check(rec, deadlyEmbrace, sthread.Schedule("1;1;1"))
	if len(rec.errors) != 0 || len(rec.logs) != 1 {
		t.Errorf("errors %q logs %q", rec.errors, rec.logs)
	}
}

func TestTB(t *testing.T) {
	rec := &recorder{TB: t, name: "TestTB"}
	tb := sthread.TB(rec)
	prog := func() {
		tb.Logf("exploring")
		n := 0
		var mu sthread.Mutex
		sthread.Go(func() { mu.Lock(); n++; mu.Unlock() })
		mu.Lock()
		if n == 1 {
			tb.Errorf("the goroutine went first: n = %d", n)
		}
		mu.Unlock()
	}
	res, err := sthread.Explore(prog)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != search.AssertionFailure ||
		res.Bugs[0].Message != "assertion failed: the goroutine went first: n = 1" {
		t.Fatalf("bugs = %v", res.Bugs)
	}
	contains(t, res.Bugs[0].String(), `tb.Errorf("the goroutine went first: n = %d", n)`)
	if len(rec.logs)+len(rec.errors) != 0 {
		t.Errorf("exploring: logs %q errors %q", rec.logs, rec.errors)
	}
	sthread.Replay(rec, res.Bugs[0].Schedule, prog)
	if len(rec.logs) != 1 || rec.logs[0] != "exploring" || len(rec.errors) != 1 {
		t.Errorf("replaying: logs %q errors %q", rec.logs, rec.errors)
	}
	// Outside Check, TB is t.
	rec = &recorder{TB: t, name: "TestTB"}
	tb = sthread.TB(rec)
	tb.Errorf("plain %d", 1)
	tb.Fatalf("fatal")
	tb.Log("log")
	if len(rec.errors) != 1 || len(rec.fatals) != 1 || len(rec.logs) != 1 {
		t.Errorf("outside Check: %q %q %q", rec.errors, rec.fatals, rec.logs)
	}
	for _, fail := range []func(testing.TB){
		func(tb testing.TB) { tb.Error("e") },
		func(tb testing.TB) { tb.Fatal("f") },
		func(tb testing.TB) { tb.Fatalf("f%d", 1) },
		func(tb testing.TB) { tb.Fail() },
		func(tb testing.TB) { tb.FailNow() },
	} {
		res, err := sthread.Explore(func() { fail(sthread.TB(rec)) })
		if err != nil || len(res.Bugs) != 1 || res.Bugs[0].Kind != search.AssertionFailure {
			t.Errorf("%v %v", res.Bugs, err)
		}
	}
}

// lostUpdate loses an update when the goroutine's increment falls between
// main's read and write; a bystander goroutine's steps, which the first
// failing schedule runs when main yields, play no part in the bug.
func lostUpdate() {
	var mu, other sthread.Mutex
	var wg sthread.WaitGroup
	n, busy := 0, 0
	sthread.Go(func() {
		for range 4 {
			other.Lock()
			busy++
			other.Unlock()
		}
	})
	wg.Add(1)
	sthread.Go(func() {
		mu.Lock()
		n++
		mu.Unlock()
		wg.Done()
	})
	mu.Lock()
	v := n
	mu.Unlock()
	sthread.Yield()
	mu.Lock()
	n = v + 1
	mu.Unlock()
	wg.Wait()
	sthread.Assert(n == 2, "lost update")
}

func TestExploreMinimises(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      []sthread.Option
		minimised bool
	}{
		{"by default", nil, true},
		{"NoMinimise", []sthread.Option{sthread.NoMinimise()}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sthread.Explore(lostUpdate, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) != 1 || res.Bugs[0].Kind != search.AssertionFailure {
				t.Fatalf("bugs %v, want the lost update", res.Bugs)
			}
			b := res.Bugs[0]
			m := b.Report.Minimised
			if !tc.minimised {
				if m != nil {
					t.Errorf("minimised with NoMinimise: %+v", m)
				}
				return
			}
			if m == nil || !m.Proven {
				t.Fatalf("not minimised, or not proven minimal: %+v", m)
			}
			if got := strings.Count(b.Schedule, ";") + 1; got != m.Length || m.Length >= m.FromLength {
				t.Errorf("schedule %s (%d steps): want the minimised %d steps, fewer than the %d found", b.Schedule, got, m.Length, m.FromLength)
			}
			if b.Report.Path != b.Schedule {
				t.Errorf("report's path %s, bug's schedule %s", b.Report.Path, b.Schedule)
			}
		})
	}
}

// TestStatefulRefusesStrategy: a stateful search (a visited set) with a
// strategy of the caller's is refused, for every stateful option: with
// DPOR it would cut executions at states explored and miss bugs.
func TestStatefulRefusesStrategy(t *testing.T) {
	for _, tt := range []struct {
		name string
		opt  sthread.Option
	}{
		{"Visited", sthread.Visited()},
		{"Livelock", sthread.Livelock()},
		{"LTL", sthread.LTL("G !bad")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ran := false
			_, err := sthread.Explore(func() { ran = true }, sthread.Strategy(search.NewDPOR()), tt.opt)
			if err == nil || !strings.Contains(err.Error(), "cannot take a Strategy") || ran {
				t.Errorf("Explore with DPOR and %s: %v (ran %v), want a refusal before running", tt.name, err, ran)
			}
		})
	}
}
