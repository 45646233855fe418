package main

import (
	"regexp"
	"strings"
	"testing"
)

// A C program whose threads update a variable without a lock: find reports
// the data race with both accesses, the variable's name and a schedule
// that its corpus entry replays; --races=false finds the lost update the
// race allows instead (and --race, the setting's former name, still works).
func TestFindDataRaceInC(t *testing.T) {
	t.Parallel()
	prog := example("lost-update.c")
	corpusDir := t.TempDir()
	out, errs, code := stdbg(t, "find", "--no-save=false", "--corpus", corpusDir, prog)
	if code != exitBug || !strings.Contains(out, "*** DATA RACE ***") {
		t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
	}
	re := regexp.MustCompile(`thread \d writes hits \(4 bytes\) at lost-update\.c:23 \(step \d\), unordered with thread \d's (read|write) at lost-update\.c:2[13] \(step \d\)`)
	if !re.MatchString(out) {
		t.Errorf("the race is not told with both accesses:\n%s", out)
	}
	entry := regexp.MustCompile(`Saved (\S+\.json)`).FindStringSubmatch(out)
	if entry == nil {
		t.Fatalf("no corpus entry saved:\n%s", out)
	}
	rout, rerrs, rcode := stdbg(t, "replay", entry[1])
	if rcode != exitBug || !strings.Contains(rout, "*** DATA RACE ***") || !re.MatchString(rout) {
		t.Errorf("replay of %s: exit %d\n%s\n%s", entry[1], rcode, rout, rerrs)
	}

	for _, off := range []string{"--races=false", "--race=false"} {
		out, errs, code = stdbg(t, "find", off, prog)
		if code != exitBug || strings.Contains(out, "DATA RACE") || !strings.Contains(out, "assertion failed: no hit is lost") {
			t.Errorf("find %s: exit %d\n%s\n%s", off, code, out, errs)
		}
	}
}

// Accesses ordered by a lock, or atomic, are no race: the DPOR examples
// that annotate their shared memory are exhausted without a report.
func TestFindNoRaceWhenOrdered(t *testing.T) {
	t.Parallel()
	tests := []struct {
		prog string
		args []string
	}{
		{"dpor/counter.c", []string{"--", "3"}},         // a mutex
		{"dpor/readers-writers.c", []string{"--", "2"}}, // a reader/writer lock
		{"dpor/lastzero.c", []string{"--", "3"}},        // atomics
		{"dpor/indexer.c", []string{"--", "12"}},        // compare-and-swap
		{"priority-inversion.c", nil},                   // atomic flags: the bug is the inversion
	}
	for _, tt := range tests {
		out, errs, _ := stdbg(t, append([]string{"find", "--all", example(tt.prog)}, tt.args...)...)
		if strings.Contains(out, "DATA RACE") {
			t.Errorf("%s: a race reported\n%s\n%s", tt.prog, out, errs)
		}
	}
}
