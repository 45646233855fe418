package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/symbolize"
)

// lockOrderModule is a module of plain Go tests: TestOneWay has no bug,
// TestBothWays deadlocks in some schedules.
var lockOrderModule = map[string]string{
	"go.mod": "module example.com/locks\n\ngo 1.22\n",
	"locks_test.go": `package locks

import (
	"sync"
	"testing"
)

func pair(first, second *sync.Mutex, done chan bool) {
	first.Lock()
	second.Lock()
	second.Unlock()
	first.Unlock()
	done <- true
}

func TestOneWay(t *testing.T) {
	var a, b sync.Mutex
	done := make(chan bool)
	go pair(&a, &b, done)
	go pair(&a, &b, done)
	<-done
	<-done
}

func TestBothWays(t *testing.T) {
	var a, b sync.Mutex
	done := make(chan bool)
	go pair(&a, &b, done)
	go pair(&b, &a, done)
	<-done
	<-done
}
`,
}

// A session started with DeferStart starts no process of a Go target for
// a search inside the target, which starts its own; the replays that
// confirm and explain a bug start one, and the report names the
// program's lines as without it; Pid starts one.
func TestDeferStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := t.TempDir()
	for name, text := range lockOrderModule {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec, _, err := search.Spec{}.Normal()
	if err != nil {
		t.Fatal(err)
	}
	find := func(test string, deferStart bool) (*Session, *Found) {
		tg, err := Resolve([]string{dir}, Build{Run: "^" + test + "$"})
		if err != nil {
			t.Fatal(err)
		}
		s, err := Start(tg, Options{FastExit: true, KeepThreads: true, DeferStart: deferStart})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		if s.proc.Launched() == deferStart {
			t.Errorf("%s: a process started %v, want %v", test, s.proc.Launched(), !deferStart)
		}
		// A front end that can watch a search (stdbg find's profile and
		// drawing) passes Watch whether or not it watches this one.
		watched := false
		found, err := s.Find(context.Background(), &Find{Plan: Plan{Request: hunt.Request{Search: spec, MaxDepth: GoMaxDepth, Minimise: true}, InTarget: true, Jobs: 1},
			Watch: func(ex search.Executor, syms *symbolize.Symbolizer) (search.Executor, func()) {
				watched = true
				return ex, func() {}
			}})
		if err != nil {
			t.Fatalf("%s: %v", test, err)
		}
		if watched {
			t.Errorf("%s: Watch called for a search not watched", test)
		}
		if !found.InTarget {
			t.Fatalf("%s: searched from stdbg, want inside the target", test)
		}
		return s, found
	}
	s, found := find("TestOneWay", true)
	if !found.Search.Complete || len(found.Findings) > 0 {
		t.Errorf("TestOneWay: complete %v, %d bugs; want complete, none", found.Search.Complete, len(found.Findings))
	}
	if s.proc.Launched() {
		t.Error("TestOneWay: a process was started for a search inside the target")
	}
	if pid := s.Pid(); pid <= 0 || !s.proc.Launched() {
		t.Errorf("Pid = %d, started %v; want a process", pid, s.proc.Launched())
	}

	report := func(found *Found) string {
		if len(found.Findings) != 1 || found.Findings[0].Report == nil {
			t.Fatalf("TestBothWays: %d bugs, want one with its report", len(found.Findings))
		}
		var sb strings.Builder
		found.Findings[0].Report.WriteText(&sb)
		return sb.String()
	}
	s, found = find("TestBothWays", true)
	deferred := report(found)
	if !s.proc.Launched() {
		t.Error("TestBothWays: the bug was confirmed and explained without a process")
	}
	_, found = find("TestBothWays", false)
	if eager := report(found); deferred != eager {
		t.Errorf("the report with DeferStart:\n%s\nwithout:\n%s", deferred, eager)
	}
	if !strings.Contains(deferred, "locks_test.go:") {
		t.Errorf("the report names no line of the test:\n%s", deferred)
	}
}
