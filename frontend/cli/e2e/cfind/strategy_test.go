package cfind

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

func TestFindStrategies(t *testing.T) {
	t.Parallel()
	embrace := clirun.Example("deadly-embrace.c")
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"pct", []string{"--strategy", "pct", "--seed", "5", embrace}, cli.ExitBug,
			[]string{"*** DEADLOCK DETECTED ***", "Search: sampled (PCT with bug depth 3, seed 5): ", "stopped at the first bug", "Seed = 5 (repeat with --seed 5)"}},
		{"pct depth 2", []string{"--strategy", "pct", "--pct-depth", "2", "--seed", "9", embrace}, cli.ExitBug,
			[]string{"Search: sampled (PCT with bug depth 2, seed 9)"}},
		{"random", []string{"--strategy", "random", "--seed", "3", embrace}, cli.ExitBug,
			[]string{"*** DEADLOCK DETECTED ***", "Search: sampled (random walk, seed 3)", "Seed = 3"}},
		{"random picks a seed", []string{"--strategy", "random", embrace}, cli.ExitBug,
			[]string{"Seed = ", "(repeat with --seed "}},
		{"no preemption misses the embrace", []string{"--preemptions", "0", embrace}, cli.ExitClean,
			[]string{"No property violation found.", "Search: preemption bounded: every schedule with at most 0 preemptions explored (0: 1 execution, complete)."}},
		{"one preemption finds it", []string{"--preemptions", "1", embrace}, cli.ExitBug,
			[]string{"*** DEADLOCK DETECTED ***", "0: 1 execution, complete; 1: ", "incomplete, stopped at the first bug"}},
		{"no delay misses the embrace", []string{"--delays", "0", embrace}, cli.ExitClean,
			[]string{"No property violation found.", "Search: delay bounded: every schedule with at most 0 delays explored (0: 1 execution, complete)."}},
		{"one delay finds it", []string{"--delays", "1", embrace}, cli.ExitBug,
			[]string{"*** DEADLOCK DETECTED ***", "0: 1 execution, complete; 1: ", "incomplete, stopped at the first bug"}},
		{"delays scale to many threads", []string{"--delays", "1", "--no-minimise", clirun.Example("bench/many-workers.c"), "--", "16"}, cli.ExitBug,
			[]string{"ASSERTION FAILED", "(0: 1 execution, complete; 1: "}},
		{"preemptions on many threads point to delays", []string{"--preemptions", "1", "--executions", "1000", clirun.Example("bench/many-workers.c"), "--", "8"}, cli.ExitClean,
			[]string{"no bound finished (0: 1000 executions, incomplete", "--delays K bounds those switches too."}},
		{"delays saturated", []string{"--delays", "50", clirun.Example("once-init.c")}, cli.ExitClean,
			[]string{"Search: exhaustive (DFS by delays): every schedule explored, none needs more than"}},
		{"bounded and saturated", []string{"--preemptions", "50", clirun.Example("once-init.c")}, cli.ExitClean,
			[]string{"Search: exhaustive (DFS by preemptions): every schedule explored, none needs more than"}},
		{"exhaustive", []string{"--reduction", "none", clirun.Example("once-init.c")}, cli.ExitClean,
			[]string{"Search: exhaustive (DFS): every schedule explored."}},
		{"exhaustive by default", []string{clirun.Example("once-init.c")}, cli.ExitClean,
			[]string{"Search: exhaustive (the portfolio's DFS with DPOR finished): every schedule explored, up to the order of independent operations."}},
		{"exhaustive with DPOR alone", []string{"--strategy", "dfs", clirun.Example("once-init.c")}, cli.ExitClean,
			[]string{"Search: exhaustive (DFS with DPOR): every schedule explored, up to the order of independent operations."}},
		{"a reduction names the dfs", []string{"--reduction", "dpor", clirun.Example("once-init.c")}, cli.ExitClean,
			[]string{"Search: exhaustive (DFS with DPOR): every schedule explored, up to the order of independent operations."}},
		// How many of the 5 executions are DPOR's depends on the
		// machine's speed (its lead is a time, which one slow execution
		// can use up), and so does the estimate of its tree: the
		// estimate is checked on DPOR alone below.
		{"execution limit", []string{"--executions", "5", "--seed", "4", clirun.Example("correct-counter.c")}, cli.ExitClean,
			[]string{"Search: portfolio of DPOR, PCT (depth 3), delay bounding (at most 2 delays) and a random walk, seed 4, incomplete: execution limit of 5 reached",
				"Seed = 4 (repeat with --seed 4)", "Executions = 5 "}},
		{"execution limit of DPOR alone", []string{"--strategy", "dfs", "--executions", "5", clirun.Example("correct-counter.c")}, cli.ExitClean,
			[]string{"Search: DFS with DPOR, incomplete: execution limit of 5 reached; about ", "% of its tree explored (estimated).", "Executions = 5 "}},
		// Many threads and a bug near the start: DPOR alone, depth first,
		// would need 9! executions; the portfolio's others find it.
		// The members share the search in time, so how many executions
		// each runs depends on the machine: PCT and the random walk
		// need a few hundred of the 20,000, DPOR could not find it in
		// all of them.
		{"the portfolio finds what DPOR misses", []string{"--executions", "20000", "--seed", "5", "--no-minimise", clirun.Example("crowded-handoff.c"), "--", "8"}, cli.ExitBug,
			[]string{"ASSERTION FAILED", "Found by ", ", in the portfolio.", "incomplete: stopped at the first bug, found by "}},
		{"DPOR alone misses it", []string{"--strategy", "dfs", "--executions", "5000", clirun.Example("crowded-handoff.c"), "--", "8"}, cli.ExitClean,
			[]string{"No property violation found.", "Search: DFS with DPOR, incomplete: execution limit of 5000 reached"}},
		{"budget", []string{"--budget", "1s", "--reduction", "none", clirun.Example("bench/philosophers.c"), "--", "4"}, cli.ExitClean,
			[]string{"Search: DFS, incomplete: budget of 1s spent"}}, // (and the execution under way cut, or not)
		{"sample limit", []string{"--strategy", "random", "--executions", "20", clirun.Example("correct-counter.c")}, cli.ExitClean,
			[]string{"20 executions, execution limit of 20 reached; schedules not sampled may hide bugs.", "Executions = 20 "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := clirun.Stdbg(t, append([]string{"find"}, tt.args...)...)
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

func TestFindSeedRepeats(t *testing.T) {
	t.Parallel()
	for _, strategy := range []string{"random", "pct"} {
		run := func() string {
			out, errs, code := clirun.Stdbg(t, "find", "--no-minimise", "--strategy", strategy, "--seed", "77", "--all",
				"--executions", "30", clirun.Example("producer-consumer-if.c"))
			if code != cli.ExitBug {
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
		out, errs, code := clirun.Stdbg(t, append(append([]string{"find"}, args...), clirun.Example("deadly-embrace.c"))...)
		if code != cli.ExitUsage || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.HasPrefix(errs, "stdbg: ") {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 with a one-line reason", args, code, errs, out)
		}
	}
}

func TestFindProfileAndJSON(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "explore.pprof")
	out, errs, code := clirun.Stdbg(t, "find", "--json", "--preemptions", "1", "--profile", path, clirun.Example("deadly-embrace.c"))
	if code != cli.ExitBug {
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
			out, errs, code := clirun.Stdbg(t, append(args, clirun.Example("once-init.c"))...)
			if code != cli.ExitClean {
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
			out, errs, code = clirun.Stdbg(t, append(append(args, "--json"), clirun.Example("once-init.c"))...)
			var est struct {
				Probes     int     `json:"probes"`
				Executions float64 `json:"executions"`
				Seconds    float64 `json:"seconds"`
			}
			if err := json.Unmarshal([]byte(out), &est); code != cli.ExitClean || err != nil {
				t.Fatalf("exit %d, %v\n%s%s", code, err, out, errs)
			}
			if r := est.Executions / tt.exact; est.Probes != 400 || r < 0.75 || r > 1.33 || est.Seconds <= 0 {
				t.Errorf("estimate %+v, the search runs %.0f executions", est, tt.exact)
			}
		})
	}
}
