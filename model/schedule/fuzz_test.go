package schedule

import (
	"testing"

	"github.com/stdbg/stdbg/internal/testkit/mutate"
)

var scheduleSeeds = []string{"", "1;1;2", "Path = 1;2;1", "2:1;3:0;1", " 1 ; 2 ", "1;1;1;1;2;3;3;3;3;2;2;2;1", "4294967296;1", "1:-1"}

// checkSchedule parses text: it must not panic, and a schedule it accepts
// prints as text that parses to the same schedule.
func checkSchedule(t *testing.T, text string) {
	s, err := Parse(text)
	if err != nil {
		return
	}
	u, err := Parse(s.String())
	if err != nil || u.String() != s.String() || len(u) != len(s) {
		t.Fatalf("%q parses to %q, which parses to %q (%v)", text, s.String(), u.String(), err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range scheduleSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { checkSchedule(t, text) })
}

// TestParseMutated runs FuzzParse's check on 20000 mutated schedules.
func TestParseMutated(t *testing.T) {
	seeds := make([][]byte, len(scheduleSeeds))
	for i, s := range scheduleSeeds {
		seeds[i] = []byte(s)
	}
	mutate.Inputs(seeds, 20000, func(b []byte) { checkSchedule(t, string(b)) })
}
