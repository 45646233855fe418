package oracle

import (
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

func ev(thread int, kind syncmodel.Kind, obj uint64) search.Event {
	return search.Event{Step: schedule.Step{Thread: thread, Choice: schedule.NoChoice}, Op: syncmodel.Op{Kind: kind, Obj: obj}}
}

// A missed trace is put down to the end of an execution only when it is
// an execution DPOR ran, cut elsewhere: the same events in the same
// dependent order, some pending ones run or not before the end.
func TestEndedElsewhere(t *testing.T) {
	const x, y = 0x10, 0x20
	ran := map[string][]search.Event{"ran": {
		ev(1, syncmodel.ThreadCreate, 0), ev(1, syncmodel.Write, x), ev(1, syncmodel.Read, y),
	}}
	for _, tt := range []struct {
		name  string
		trace []search.Event
		want  bool
	}{
		{"thread 2 ran a step before the end", []search.Event{
			ev(1, syncmodel.ThreadCreate, 0), ev(1, syncmodel.Write, x), ev(2, syncmodel.ThreadStart, 0), ev(1, syncmodel.Read, y),
		}, true},
		{"thread 1 ended earlier, thread 2 ran", []search.Event{
			ev(1, syncmodel.ThreadCreate, 0), ev(2, syncmodel.ThreadStart, 0), ev(2, syncmodel.Write, y), ev(1, syncmodel.Write, x),
		}, true},
		{"the same events: not an end", ran["ran"], false},
		{"thread 2 read x before thread 1 wrote it", []search.Event{
			ev(1, syncmodel.ThreadCreate, 0), ev(2, syncmodel.ThreadStart, 0), ev(2, syncmodel.Read, x), ev(1, syncmodel.Write, x), ev(1, syncmodel.Read, y),
		}, true}, // cut to what both ran, thread 2 ran nothing in "ran"
	} {
		if got := endedElsewhere(tt.trace, ran); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	// Two orders of dependent events that both executions ran are
	// different traces, whatever else differs.
	a := map[string][]search.Event{"a": {
		ev(1, syncmodel.ThreadCreate, 0), ev(1, syncmodel.Write, x), ev(2, syncmodel.ThreadStart, 0), ev(2, syncmodel.Read, x),
	}}
	b := []search.Event{
		ev(1, syncmodel.ThreadCreate, 0), ev(2, syncmodel.ThreadStart, 0), ev(2, syncmodel.Read, x), ev(1, syncmodel.Write, x), ev(1, syncmodel.Read, y),
	}
	if endedElsewhere(b, a) {
		t.Errorf("a read before and after a write taken for the same trace")
	}
}
