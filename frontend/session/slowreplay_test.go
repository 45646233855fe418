package session

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
)

// slowReplayModule is a module of one plain Go test that fails when its
// goroutine runs first. The execution that fails leaves a mark; every
// later run of the failing schedule (a replay that confirms or explains
// the bug) sees it and computes for far longer than any budget, without a
// scheduling point.
var slowReplayModule = map[string]string{
	"go.mod": "module example.com/slowreplay\n\ngo 1.22\n",
	"slow_test.go": `package slowreplay

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestSlowReplay(t *testing.T) {
	mark := filepath.Join(os.Getenv("SLOW_REPLAY_DIR"), "found")
	var mu sync.Mutex
	x := 0
	done := make(chan bool)
	go func() {
		mu.Lock()
		x = 1
		mu.Unlock()
		done <- true
	}()
	mu.Lock()
	seen := x
	mu.Unlock()
	<-done
	if seen != 1 {
		return
	}
	if _, err := os.Stat(mark); err == nil {
		sum := 0
		for i := 0; i < 1<<42; i++ {
			sum += i ^ sum>>3
		}
		if sum == 42 {
			t.Log(sum)
		}
	}
	os.WriteFile(mark, nil, 0o644)
	t.Error("the goroutine ran first")
}
`,
}

// The replays that confirm a bug found inside the target and explain it
// end with the budget: a replay that computes past it is cut, and the bug
// stays reported and saved as the search found it, its report saying what
// was cut. (They ran to the transition timeout, here ten minutes, each.)
func TestSlowReplayWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir, marks, saved := t.TempDir(), t.TempDir(), t.TempDir()
	for name, text := range slowReplayModule {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("SLOW_REPLAY_DIR", marks)
	tg, err := Resolve([]string{dir}, Build{Run: "^TestSlowReplay$"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(tg, Options{FastExit: true, TransitionTimeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	spec, _, err := search.Spec{}.Normal()
	if err != nil {
		t.Fatal(err)
	}
	const budget = 10 * time.Second
	f := &Find{
		Plan:   Plan{Request: hunt.Request{Search: spec, MaxDepth: GoMaxDepth, Minimise: true, Budget: budget}, InTarget: true, Jobs: 1},
		Corpus: &hunt.Corpus{Dir: saved, Target: tg.EntryTarget(saved)},
	}
	type ended struct {
		found *Found
		err   error
	}
	done := make(chan ended, 1)
	start := time.Now()
	go func() {
		found, err := s.Find(context.Background(), f)
		done <- ended{found, err}
	}()
	// The budget, and time for the target's start and the reports, on a
	// loaded machine: far less than one replay that is not cut.
	const bound = 2 * time.Minute
	var got ended
	select {
	case got = <-done:
	case <-time.After(bound):
		t.Fatalf("the hunt did not end within %s of a %s budget", bound, budget)
	}
	t.Logf("the hunt took %s", time.Since(start).Round(time.Millisecond))
	if got.err != nil {
		t.Fatalf("find: %v", got.err)
	}
	if len(got.found.Findings) != 1 {
		t.Fatalf("%d findings; want the failed test", len(got.found.Findings))
	}
	fd := got.found.Findings[0]
	if fd.Bug.Outcome.Kind != search.AssertionFailure {
		t.Errorf("the bug is %s (%s); want the failed test", fd.Bug.Outcome.Kind, fd.Bug.Outcome.Message)
	}
	r := fd.Report
	if r == nil {
		t.Fatal("the bug has no report")
	}
	for _, want := range []string{hunt.ExplainCut, Unconfirmed} {
		if !slices.Contains(r.Notes, want) {
			t.Errorf("the report's notes %q do not say %q", r.Notes, want)
		}
	}
	if !r.Bug || r.Kind != search.AssertionFailure.String() || r.Path != fd.Bug.Schedule.String() {
		t.Errorf("report: bug %v, kind %q, path %q; want the bug as found (%s)", r.Bug, r.Kind, r.Path, fd.Bug.Schedule)
	}
	if fd.Saved == "" || fd.SaveErr != nil {
		t.Fatalf("saved at %q (%v); want the bug saved", fd.Saved, fd.SaveErr)
	}
	e, err := corpus.Load(fd.Saved)
	if err != nil {
		t.Fatal(err)
	}
	if e.Failure.Kind != search.AssertionFailure.String() || e.Schedule == "" || !strings.Contains(e.Failure.Message, "the goroutine ran first") {
		t.Errorf("the saved entry holds %+v with schedule %q; want the failed test and its schedule", e.Failure, e.Schedule)
	}
}
