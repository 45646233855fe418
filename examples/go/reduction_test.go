package goexamples

import (
	"slices"
	"testing"

	"github.com/stdbg/stdbg/sthread"
)

// bugSet explores f for every bug and returns their kinds and places.
func bugSet(t *testing.T, f func(), opts ...sthread.Option) []string {
	t.Helper()
	res, err := sthread.Explore(f, append(opts, sthread.All())...)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete {
		t.Fatalf("exploration incomplete: %+v", res.Stats)
	}
	var keys []string
	for _, b := range res.Bugs {
		keys = append(keys, b.Kind.String()+"@"+b.Where)
	}
	slices.Sort(keys)
	t.Logf("%d executions: %q", res.Stats.Executions, keys)
	return keys
}

// Every example: DPOR finds exactly the bugs that running every schedule
// finds.
func TestReductionFindsTheSameBugs(t *testing.T) {
	examples := map[string]func(){
		"deadly embrace":   deadlyEmbrace,
		"double close":     doubleClose,
		"leader election":  leaderElection,
		"missing unlock":   missingUnlock,
		"pipeline":         pipeline,
		"recursive rlock":  recursiveRLock,
		"timeout leak":     timeoutLeak(0),
		"timeout fixed":    timeoutLeak(1),
		"waitgroup racing": waitGroupRace,
	}
	for name, f := range examples {
		t.Run(name, func(t *testing.T) {
			none := bugSet(t, f, sthread.NoReduction(), sthread.NoSave())
			dpor := bugSet(t, f, sthread.NoSave())
			if !slices.Equal(none, dpor) {
				t.Errorf("DPOR found %q, every schedule %q", dpor, none)
			}
		})
	}
}
