package goexamples

import (
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// leaderElection: two candidates elect a leader through shared booleans,
// without a lock: each checks that the other has not claimed leadership,
// then claims it. The check and the claim are separate steps, so both can
// check before either claims, and both lead.
//
// Plain memory accesses are not scheduling points: sthread.Read and
// sthread.Write name the shared flags so that the search interleaves the
// candidates around them, and sthread.Yield marks the window between check
// and claim.
func leaderElection() {
	var aliceLeads, bobLeads bool
	var wg sthread.WaitGroup
	wg.Go(func() { // alice
		sthread.Read(&bobLeads)
		if !bobLeads {
			sthread.Yield()
			sthread.Write(&aliceLeads)
			aliceLeads = true
		}
	})
	wg.Go(func() { // bob
		sthread.Read(&aliceLeads)
		if !aliceLeads {
			sthread.Yield()
			sthread.Write(&bobLeads)
			bobLeads = true
		}
	})
	wg.Wait()
	sthread.Assert(!(aliceLeads && bobLeads), "two leaders")
}

func TestLeaderElection(t *testing.T) {
	expectBug(t, leaderElection, search.AssertionFailure,
		"assertion failed: two leaders",
		"sthread.Read(&bobLeads)", "sthread.Write(&aliceLeads)", "sthread.Write(&bobLeads)")
}
