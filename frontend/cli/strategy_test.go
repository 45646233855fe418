package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stdbg/stdbg/engine/search"
)

func TestFindStrategies(t *testing.T) {
	t.Parallel()
	embrace := example("deadly-embrace.c")
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"pct", []string{"--strategy", "pct", "--seed", "5", embrace}, exitBug,
			[]string{"*** DEADLOCK DETECTED ***", "Search: sampled (PCT with bug depth 3, seed 5): ", "stopped at the first bug", "Seed = 5 (repeat with --seed 5)"}},
		{"pct depth 2", []string{"--strategy", "pct", "--pct-depth", "2", "--seed", "9", embrace}, exitBug,
			[]string{"Search: sampled (PCT with bug depth 2, seed 9)"}},
		{"random", []string{"--strategy", "random", "--seed", "3", embrace}, exitBug,
			[]string{"*** DEADLOCK DETECTED ***", "Search: sampled (random walk, seed 3)", "Seed = 3"}},
		{"random picks a seed", []string{"--strategy", "random", embrace}, exitBug,
			[]string{"Seed = ", "(repeat with --seed "}},
		{"no preemption misses the embrace", []string{"--preemptions", "0", embrace}, exitClean,
			[]string{"No property violation found.", "Search: preemption bounded: every schedule with at most 0 preemptions explored (0: 1 execution, complete)."}},
		{"one preemption finds it", []string{"--preemptions", "1", embrace}, exitBug,
			[]string{"*** DEADLOCK DETECTED ***", "0: 1 execution, complete; 1: ", "incomplete, stopped at the first bug"}},
		{"no delay misses the embrace", []string{"--delays", "0", embrace}, exitClean,
			[]string{"No property violation found.", "Search: delay bounded: every schedule with at most 0 delays explored (0: 1 execution, complete)."}},
		{"one delay finds it", []string{"--delays", "1", embrace}, exitBug,
			[]string{"*** DEADLOCK DETECTED ***", "0: 1 execution, complete; 1: ", "incomplete, stopped at the first bug"}},
		{"delays scale to many threads", []string{"--delays", "1", "--no-minimise", example("bench/many-workers.c"), "--", "16"}, exitBug,
			[]string{"ASSERTION FAILED", "(0: 1 execution, complete; 1: "}},
		{"preemptions on many threads point to delays", []string{"--preemptions", "1", "--executions", "1000", example("bench/many-workers.c"), "--", "8"}, exitClean,
			[]string{"no bound finished (0: 1000 executions, incomplete", "--delays K bounds those switches too."}},
		{"delays saturated", []string{"--delays", "50", example("once-init.c")}, exitClean,
			[]string{"Search: exhaustive (DFS by delays): every schedule explored, none needs more than"}},
		{"bounded and saturated", []string{"--preemptions", "50", example("once-init.c")}, exitClean,
			[]string{"Search: exhaustive (DFS by preemptions): every schedule explored, none needs more than"}},
		{"exhaustive", []string{"--reduction", "none", example("once-init.c")}, exitClean,
			[]string{"Search: exhaustive (DFS): every schedule explored."}},
		{"exhaustive by default", []string{example("once-init.c")}, exitClean,
			[]string{"Search: exhaustive (the portfolio's DFS with DPOR finished): every schedule explored, up to the order of independent operations."}},
		{"exhaustive with DPOR alone", []string{"--strategy", "dfs", example("once-init.c")}, exitClean,
			[]string{"Search: exhaustive (DFS with DPOR): every schedule explored, up to the order of independent operations."}},
		{"a reduction names the dfs", []string{"--reduction", "dpor", example("once-init.c")}, exitClean,
			[]string{"Search: exhaustive (DFS with DPOR): every schedule explored, up to the order of independent operations."}},
		// How many of the 5 executions are DPOR's depends on the
		// machine's speed (its lead is a time, which one slow execution
		// can use up), and so does the estimate of its tree: the
		// estimate is checked on DPOR alone below.
		{"execution limit", []string{"--executions", "5", "--seed", "4", example("correct-counter.c")}, exitClean,
			[]string{"Search: portfolio of DPOR, PCT (depth 3), delay bounding (at most 2 delays) and a random walk, seed 4, incomplete: execution limit of 5 reached",
				"Seed = 4 (repeat with --seed 4)", "Executions = 5 "}},
		{"execution limit of DPOR alone", []string{"--strategy", "dfs", "--executions", "5", example("correct-counter.c")}, exitClean,
			[]string{"Search: DFS with DPOR, incomplete: execution limit of 5 reached; about ", "% of its tree explored (estimated).", "Executions = 5 "}},
		// Many threads and a bug near the start: DPOR alone, depth first,
		// would need 9! executions; the portfolio's others find it.
		// The members share the search in time, so how many executions
		// each runs depends on the machine: PCT and the random walk
		// need a few hundred of the 20,000, DPOR could not find it in
		// all of them.
		{"the portfolio finds what DPOR misses", []string{"--executions", "20000", "--seed", "5", "--no-minimise", example("crowded-handoff.c"), "--", "8"}, exitBug,
			[]string{"ASSERTION FAILED", "Found by ", ", in the portfolio.", "incomplete: stopped at the first bug, found by "}},
		{"DPOR alone misses it", []string{"--strategy", "dfs", "--executions", "5000", example("crowded-handoff.c"), "--", "8"}, exitClean,
			[]string{"No property violation found.", "Search: DFS with DPOR, incomplete: execution limit of 5000 reached"}},
		{"budget", []string{"--budget", "1s", "--reduction", "none", example("bench/philosophers.c"), "--", "4"}, exitClean,
			[]string{"Search: DFS, incomplete: budget of 1s spent"}}, // (and the execution under way cut, or not)
		{"sample limit", []string{"--strategy", "random", "--executions", "20", example("correct-counter.c")}, exitClean,
			[]string{"20 executions, execution limit of 20 reached; schedules not sampled may hide bugs.", "Executions = 20 "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := stdbg(t, append([]string{"find"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errs)
			}
			for _, want := range tt.contains {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "Found by DPOR") && strings.Contains(tt.name, "portfolio finds") {
				t.Errorf("found by DPOR:\n%s", out)
			}
			if strings.Contains(errs, "exec/s") {
				t.Errorf("progress line written to a non-terminal:\n%s", errs)
			}
		})
	}
}

// TestFindSeedRepeats checks that a seed repeats a sampled search.
// flagWords says search.Spec's refusals in the words of find's flags.
func TestFlagWords(t *testing.T) {
	for _, tc := range []struct {
		spec search.Spec
		want string
	}{
		{search.Spec{BoundBy: search.BoundPreemptions, Bound: 2, Stateful: true},
			"--visited, --livelock and --ltl need the full state graph: they cannot be combined with --preemptions: a state reached with fewer preemptions is not the same search node"},
		{search.Spec{BoundBy: search.BoundDelays, Bound: 1, Stateful: true},
			"--visited, --livelock and --ltl need the full state graph: they cannot be combined with --delays: a state reached with fewer delays is not the same search node"},
		{search.Spec{Strategy: search.StrategyRandom, Stateful: true},
			"--visited, --livelock and --ltl need the full state graph: they cannot be combined with --strategy random (use --strategy dfs)"},
		{search.Spec{Strategy: search.StrategyPortfolio, Stateful: true},
			"--visited, --livelock and --ltl need the full state graph: they cannot be combined with --strategy portfolio (use --strategy dfs)"},
		{search.Spec{Strategy: search.StrategyPCT, BoundBy: search.BoundPreemptions},
			"--preemptions bounds the dfs strategy, not pct"},
		{search.Spec{Strategy: search.StrategyRandom, Reduction: search.ReductionDPOR},
			"--reduction dpor is dfs's, not random's"},
	} {
		err := tc.spec.Check()
		if err == nil {
			t.Errorf("%+v: accepted", tc.spec)
			continue
		}
		if got := flagWords(err.Error()); got != tc.want {
			t.Errorf("%+v: %q\nwant %q", tc.spec, got, tc.want)
		}
	}
}

func TestFindSeedRepeats(t *testing.T) {
	t.Parallel()
	for _, strategy := range []string{"random", "pct"} {
		run := func() string {
			out, errs, code := stdbg(t, "find", "--no-minimise", "--strategy", strategy, "--seed", "77", "--all",
				"--executions", "30", example("producer-consumer-if.c"))
			if code != exitBug {
				t.Fatalf("%s: exit %d\n%s%s", strategy, code, out, errs)
			}
			// The paths found and the statistics but the time.
			var keep []string
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "Path = ") || strings.HasPrefix(l, "Executions = ") {
					keep = append(keep, regexp.MustCompile(`\(.*\)`).ReplaceAllString(l, ""))
				}
			}
			return strings.Join(keep, "\n")
		}
		if a, b := run(), run(); a != b || a == "" {
			t.Errorf("%s with seed 77: runs differ or are empty:\n%s\n---\n%s", strategy, a, b)
		}
	}
}

func TestFindBadStrategyFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--strategy", "bfs"},
		{"--pct-depth", "0", "--strategy", "pct"},
		{"--preemptions", "2", "--strategy", "random"},
		{"--preemptions", "-2"},
		{"--delays", "-2"},
		{"--delays", "1", "--preemptions", "1"},
		{"--delays", "1", "--strategy", "pct"},
		{"--budget", "-1s"},
		{"--budget", "soon"},
		{"--executions", "-1"},
		{"--strategy", "portfolio", "--preemptions", "1"},
		{"--strategy", "portfolio", "--visited"},
		{"--estimate", "--strategy", "pct"},
		{"--estimate", "--delays", "2"},
		{"--estimate", "--visited"},
		{"--estimate", "--shard", "0/2"},
		{"--estimate", "--all"},
		{"--estimate", "--html", "x.html"},
	} {
		out, errs, code := stdbg(t, append(append([]string{"find"}, args...), example("deadly-embrace.c"))...)
		if code != exitUsage || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.HasPrefix(errs, "stdbg: ") {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 with a one-line reason", args, code, errs, out)
		}
	}
}

func TestFindProfileAndJSON(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "explore.pprof")
	out, errs, code := stdbg(t, "find", "--json", "--preemptions", "1", "--profile", path, example("deadly-embrace.c"))
	if code != exitBug {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var res struct {
		Strategy string `json:"strategy"`
		Sampled  bool   `json:"sampled"`
		Coverage string `json:"coverage"`
		Bounds   []struct {
			Preemptions int
			Executions  int64
			Complete    bool
		} `json:"preemption_bounds"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Strategy != "dfs" || res.Sampled || len(res.Bounds) != 2 || !res.Bounds[0].Complete || res.Bounds[1].Complete ||
		!strings.HasPrefix(res.Coverage, "Search: preemption bounded") {
		t.Errorf("JSON %+v", res)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, s := range p.Sample {
		if len(s.Location) > 1 {
			l := s.Location[1].Line[0]
			lines = append(lines, s.Location[0].Line[0].Function.Name+"@"+filepath.Base(l.Function.Filename))
		}
	}
	if !strings.Contains(strings.Join(lines, " "), "pthread_mutex_lock@deadly-embrace.c") {
		t.Errorf("profile samples %v lack the mutex locks of deadly-embrace.c", lines)
	}
}

// find --estimate searches nothing and estimates an exhaustive search:
// within a small factor of the executions the search runs (16 with DPOR,
// 819 without a reduction, on once-init.c).
func TestFindEstimate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		exact float64
		lines []string
	}{
		{"the portfolio's DPOR", nil, 16, []string{
			"Estimate of an exhaustive search (DFS with DPOR, the portfolio's exhaustive member) of ", "from 400 random probes",
			"  executions:  about ", "  time:        about ", "the estimate counts those classes"}},
		{"every schedule", []string{"--reduction", "none"}, 819, []string{"Estimate of an exhaustive search (DFS) of "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"find", "--estimate", "--executions", "400", "--seed", "5"}, tt.args...)
			out, errs, code := stdbg(t, append(args, example("once-init.c"))...)
			if code != exitClean {
				t.Fatalf("exit %d\n%s%s", code, out, errs)
			}
			for _, want := range tt.lines {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "Search:") || strings.Contains(out, "Executions =") {
				t.Errorf("an estimate ran a search:\n%s", out)
			}
			out, errs, code = stdbg(t, append(append(args, "--json"), example("once-init.c"))...)
			var est struct {
				Probes     int     `json:"probes"`
				Executions float64 `json:"executions"`
				Seconds    float64 `json:"seconds"`
			}
			if err := json.Unmarshal([]byte(out), &est); code != exitClean || err != nil {
				t.Fatalf("exit %d, %v\n%s%s", code, err, out, errs)
			}
			if r := est.Executions / tt.exact; est.Probes != 400 || r < 0.75 || r > 1.33 || est.Seconds <= 0 {
				t.Errorf("estimate %+v, the search runs %.0f executions", est, tt.exact)
			}
		})
	}
}
