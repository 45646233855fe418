package search

import (
	"context"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/model/schedule"
)

func TestUnder(t *testing.T) {
	ex := embrace()
	// Below 1;2 (thread 2 took its first lock) every completion deadlocks
	// or not; the deadlock must be found with the prefix removed.
	res, err := Explore(context.Background(), Under(ex, schedule.Threads(1, 2)), NewDFS(), Options{MaxDepth: 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) == 0 || res.Bugs[0].Outcome.Kind != Deadlock {
		t.Fatalf("bugs %+v", res.Bugs)
	}
	full := append(schedule.Threads(1, 2), res.Bugs[0].Schedule...)
	e, _ := ex.Start()
	rr, err := Replay(e, full, 30)
	e.Close()
	if err != nil || rr.Outcome == nil || rr.Outcome.Kind != Deadlock {
		t.Fatalf("the prefixed schedule %s does not replay the deadlock: %+v %v", full, rr, err)
	}
	if _, err := Under(ex, schedule.Threads(1, 7)).Start(); err == nil || !strings.Contains(err.Error(), "prefix step 2") {
		t.Fatalf("a prefix that does not fit: %v", err)
	}
}
