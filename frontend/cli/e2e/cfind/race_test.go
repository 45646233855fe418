package cfind

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// A C program whose threads update a variable without a lock: find reports
// the data race with both accesses, the variable's name and a schedule
// that its corpus entry replays; --races=false finds the lost update the
// race allows instead (and --race, the setting's former name, still works).
func TestFindDataRaceInC(t *testing.T) {
	t.Parallel()
	prog := clirun.Example("lost-update.c")
	corpusDir := t.TempDir()
	out, errs, code := clirun.Stdbg(t, "find", "--no-save=false", "--corpus", corpusDir, prog)
	if code != cli.ExitBug || !strings.Contains(out, "*** DATA RACE ***") {
		t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
	}
	// Either access may come second in the minimal schedule: both orders
	// take 7 steps and 1 preemption.
	// (The annotations are steps, the plain accesses after them are
	// checked too: "after step N".)
	re := regexp.MustCompile(`thread \d (reads|writes) hits \(4 bytes\) at lost-update\.c:2[134] \((after )?step \d\), unordered with thread \d's (read|write) at lost-update\.c:2[134] \((after )?step \d\)`)
	if !re.MatchString(out) {
		t.Errorf("the race is not told with both accesses:\n%s", out)
	}
	entry := []string{"", clirun.LastSaved(out)}
	if entry[1] == "" {
		t.Fatalf("no corpus entry saved:\n%s", out)
	}
	rout, rerrs, rcode := clirun.Stdbg(t, "replay", entry[1])
	if rcode != cli.ExitBug || !strings.Contains(rout, "*** DATA RACE ***") || !re.MatchString(rout) {
		t.Errorf("replay of %s: exit %d\n%s\n%s", entry[1], rcode, rout, rerrs)
	}

	for _, off := range []string{"--races=false", "--race=false"} {
		out, errs, code = clirun.Stdbg(t, "find", off, prog)
		if code != cli.ExitBug || strings.Contains(out, "DATA RACE") || !strings.Contains(out, "assertion failed: no hit is lost") {
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
		out, errs, _ := clirun.Stdbg(t, append([]string{"find", "--all", "--no-minimise", clirun.Example(tt.prog)}, tt.args...)...)
		if strings.Contains(out, "DATA RACE") {
			t.Errorf("%s: a race reported\n%s\n%s", tt.prog, out, errs)
		}
	}
}

// By default a C source is built with the memory instrumentation: the x++
// on an unannotated global, exhausted without a bug in the plain build
// (--memory=false), is found as a data race between a load and a store
// made after two threads' starts; the corpus entry remembers the build and
// the mode, and its replay finds the same race; with --races=false every
// access is a scheduling point and the lost update itself is found; the
// verdict and the JSON say what the search covered.
func TestFindMemoryRace(t *testing.T) {
	t.Parallel()
	prog := clirun.Example("memory/lost-update.c")
	corpusDir := t.TempDir()
	out, errs, code := clirun.Stdbg(t, "find", "--no-save=false", "--corpus", corpusDir, prog)
	re := regexp.MustCompile(`thread \d (reads|writes) visits \(4 bytes\) at lost-update\.c:19 \(after step \d\), unordered with thread \d's (read|write) at lost-update\.c:19 \(after step \d\)`)
	if code != cli.ExitBug || !strings.Contains(out, "*** DATA RACE ***") || !re.MatchString(out) ||
		regexp.MustCompile(`(load|store)\(&visits`).MatchString(out) {
		t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
	}
	entry := []string{"", clirun.LastSaved(out)}
	if entry[1] == "" {
		t.Fatalf("no corpus entry saved:\n%s", out)
	}
	b, err := os.ReadFile(entry[1])
	if err != nil || !strings.Contains(string(b), `"memory": true`) || !strings.Contains(string(b), `"STDBG_MEM_LOG=1"`) {
		t.Errorf("entry %s does not record the instrumented build (%v):\n%s", entry[1], err, b)
	}
	rout, rerrs, rcode := clirun.Stdbg(t, "replay", entry[1])
	if rcode != cli.ExitBug || !re.MatchString(rout) {
		t.Errorf("replay of %s: exit %d\n%s\n%s", entry[1], rcode, rout, rerrs)
	}

	out, errs, code = clirun.Stdbg(t, "find", "--races=false", prog)
	if code != cli.ExitBug || !strings.Contains(out, "assertion failed") || !strings.Contains(out, "visits == 2") ||
		!regexp.MustCompile(`thread \d  (load|store)\(&visits\) \(4 bytes\) +lost-update\.c:19`).MatchString(out) {
		t.Errorf("find --races=false: exit %d\n%s\n%s", code, out, errs)
	}

	for _, tt := range []struct {
		flags          []string
		checked, point bool
	}{
		{nil, true, false},
		{[]string{"--races=false"}, true, true},
		{[]string{"--memory=false"}, false, false},
	} {
		args := append(append([]string{"find"}, tt.flags...), "--quiet", "--json", clirun.Example("memory/publish-atomic.c"))
		out, errs, code = clirun.Stdbg(t, args...)
		var res struct {
			Complete      bool   `json:"complete"`
			MemoryChecked bool   `json:"memory_checked"`
			MemoryPoints  bool   `json:"memory_scheduling_points"`
			Scope         string `json:"scope"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != cli.ExitClean || !res.Complete ||
			res.MemoryChecked != tt.checked || res.MemoryPoints != tt.point || strings.Contains(res.Scope, "memory") != tt.checked {
			t.Errorf("%q on a correct program: exit %d, %+v (%v)\n%s\n%s", args, code, res, err, out, errs)
		}
	}
}

// stdbg cc --memory builds an instrumented program that runs alone without
// the sanitizer's runtime, in one command or in two (-c, then link); find
// on the binary schedules its memory accesses without being told. --memory
// on a binary built without it says so.
func TestCCMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := clirun.Example("memory/lost-update.c")
	one, obj, two, plain := filepath.Join(dir, "one"), filepath.Join(dir, "lu.o"), filepath.Join(dir, "two"), filepath.Join(dir, "plain")
	for _, args := range [][]string{
		{"cc", "--memory", "-o", one, src},
		{"cc", "--memory", "-c", "-o", obj, src},
		{"cc", "--memory", "-o", two, obj},
		{"cc", "-o", plain, src},
	} {
		if out, errs, code := clirun.Stdbg(t, args...); code != 0 {
			t.Fatalf("%q: exit %d\n%s\n%s", args, code, out, errs)
		}
	}
	for _, exe := range []string{one, two} {
		if out, err := exec.Command(exe).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "2 visits" {
			t.Errorf("%s alone: %v %q", exe, err, out)
		}
		out, errs, code := clirun.Stdbg(t, "find", "--races=false", exe)
		if code != cli.ExitBug || !strings.Contains(out, "visits == 2") || !strings.Contains(out, "load(&visits) (4 bytes)") {
			t.Errorf("find --races=false %s: exit %d\n%s\n%s", exe, code, out, errs)
		}
		out, errs, code = clirun.Stdbg(t, "find", exe)
		if code != cli.ExitBug || !strings.Contains(out, "*** DATA RACE ***") || !strings.Contains(out, "(after step") {
			t.Errorf("find %s: exit %d\n%s\n%s", exe, code, out, errs)
		}
	}
	out, errs, code := clirun.Stdbg(t, "find", "--memory", plain)
	if code != cli.ExitClean || !strings.Contains(errs, "was not built with stdbg cc --memory") || !strings.Contains(out, "plain memory accesses were not scheduling points") {
		t.Errorf("find --memory on a plain build: exit %d\n%s\n%s", code, out, errs)
	}
}
