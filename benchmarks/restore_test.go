package benchmarks

import (
	"context"
	"testing"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/frontend/session"
)

// The search of a test that keeps state in package-level variables
// (examples/go/plain/pkgstate: a lazily filled cache, a counter, a
// sync.Once; 120 executions, exhaustive), as stdbg find runs it: inside
// the test's process with the variables put back before each execution,
// and with STDBG_RESTORE=0 a fresh process per execution, as before stdbg
// could put them back. The test binary is built once (not timed); each
// iteration starts the target and searches, minimisation off.
func BenchmarkPackageStateRestored(b *testing.B) { packageState(b, "1", true) }

func BenchmarkPackageStateFresh(b *testing.B) { packageState(b, "0", false) }

func packageState(b *testing.B, restore string, inTarget bool) {
	b.Setenv("STDBG_RESTORE", restore)
	t, err := session.Resolve([]string{"../examples/go/plain/pkgstate"}, session.Build{Run: "^TestLookup$", Race: true})
	if err != nil {
		b.Fatal(err)
	}
	spec, _, err := search.Spec{}.Normal()
	if err != nil {
		b.Fatal(err)
	}
	var execs int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := session.Start(t, session.Options{FastExit: true, KeepThreads: true})
		if err != nil {
			b.Fatal(err)
		}
		found, err := s.Find(context.Background(), &session.Find{
			Plan: session.Plan{Request: hunt.Request{Search: spec, MaxDepth: session.GoMaxDepth}, InTarget: true, Jobs: 1}})
		s.Close()
		if err != nil || !found.Search.Complete || len(found.Findings) > 0 || found.InTarget != inTarget {
			b.Fatalf("complete %v, %d bugs, inside the target %v: %v", found.Search.Complete, len(found.Findings), found.InTarget, err)
		}
		execs += found.Stats.Executions
	}
	b.ReportMetric(float64(execs)/b.Elapsed().Seconds(), "execs/s")
}
