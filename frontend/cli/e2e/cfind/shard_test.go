package cfind

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/frontend/session"
	"github.com/stdbg/stdbg/internal/testkit/clirun"

	"github.com/stdbg/stdbg/engine/corpus"
)

// corpusBugs lists the kind@place of the entries of a corpus.
func corpusBugs(t *testing.T, dir string) []string {
	t.Helper()
	items, err := corpus.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ks []string
	for _, it := range items {
		if it.Err != nil {
			t.Fatalf("%s: %v", it.Path, it.Err)
		}
		ks = append(ks, it.Entry.Failure.Kind+"@"+it.Entry.Failure.Where)
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

// Three shards of one search, each with two workers, merged: the same bugs
// as one search, and for reduction none the same number of executions.
func TestShardsMergeToOneSearch(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	for _, prog := range []string{"deadly-embrace.c", "leak.c"} {
		whole := filepath.Join(base, "whole")
		if _, errs, code := clirun.Stdbg(t, "find", "--all", "--no-save=false", "-j", "1", "--corpus", filepath.Join(whole, prog), clirun.Example(prog)); code != cli.ExitBug {
			t.Fatalf("%s: exit %d: %s", prog, code, errs)
		}
		var shards []string
		for i := range 3 {
			dir := filepath.Join(base, "shard", string(rune('0'+i)))
			shards = append(shards, dir)
			clirun.Stdbg(t, "find", "--all", "--no-save=false", "-j", "2", "--shard", string(rune('0'+i))+"/3",
				"--corpus", filepath.Join(dir, prog), clirun.Example(prog))
		}
		merged := filepath.Join(base, "merged")
		out, errs, code := clirun.Stdbg(t, append(append([]string{"corpus", "merge"}, shards...), "-o", merged)...)
		if code != cli.ExitClean {
			t.Fatalf("merge: exit %d: %s %s", code, out, errs)
		}
		if got, want := corpusBugs(t, filepath.Join(merged, prog)), corpusBugs(t, filepath.Join(whole, prog)); !slices.Equal(got, want) {
			t.Errorf("%s: shards found %q, one search %q", prog, got, want)
		}
	}
}

func TestShardCountsAddUp(t *testing.T) {
	execs := func(args ...string) string {
		out, errs, code := clirun.Stdbg(t, append([]string{"find", "--reduction", "none"}, append(args, clirun.Example("correct-counter.c"))...)...)
		if code != cli.ExitClean {
			t.Fatalf("exit %d: %s", code, errs)
		}
		i := strings.Index(out, "Executions = ")
		f := strings.Fields(out[i+len("Executions = "):])
		return f[0]
	}
	// The trial in one copy ends by its count alone here, not by the
	// machine's speed.
	defer func(d time.Duration) { session.TrialTime = d }(session.TrialTime)
	session.TrialTime = time.Hour
	one := execs("-j", "1")
	if got := execs("-j", "3"); got != one {
		t.Errorf("-j 3 ran %s executions, -j 1 %s", got, one)
	}
	// A search that outlives the trial in one copy is divided and starts
	// over: the divided search runs what one worker runs, plus the trial.
	defer func(n int64) { session.TrialExecutions = n }(session.TrialExecutions)
	session.TrialExecutions = 3
	if got, want := execs("-j", "3"), fmt.Sprint(atoi(t, one)+3); got != want {
		t.Errorf("-j 3 after a trial of 3 executions ran %s executions, want %s", got, want)
	}
	total := 0
	for _, s := range []string{"0/2", "1/2"} {
		var n int
		for _, c := range execs("-j", "1", "--shard", s) {
			n = n*10 + int(c-'0')
		}
		total += n
	}
	var want int
	for _, c := range one {
		want = want*10 + int(c-'0')
	}
	if total != want {
		t.Errorf("shards ran %d executions together, one search %d", total, want)
	}
}

func TestBadShardAndJobs(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--shard", "3/3"}, {"--shard", "x"}, {"--shard", "1/0"}, {"-j", "-1"}, {"--reduction", "sleep"},
	} {
		_, errs, code := clirun.Stdbg(t, append(append([]string{"find"}, args...), clirun.Example("deadly-embrace.c"))...)
		if code != cli.ExitUsage || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
