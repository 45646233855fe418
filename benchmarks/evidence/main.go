// Command evidence measures how the default search of stdbg find (the
// portfolio) compares with the searches it is made of, run alone, on the
// bundled bug examples: the C programs of examples/c, the plain Go
// programs of examples/go/plain, the sthread programs of examples/go, the
// Go kernels of examples/go/kernels, the kernels of issue 34 in
// benchmarks/evidence/kernels and the spin loops of examples/c/spin. For
// each program and search it
// runs `stdbg find --json --no-minimise --no-save -j 1 --budget B` and
// prints a markdown table of the time and executions to the first bug, and
// the number of bugs each search found within the budget.
//
// Run it from the repository root:
//
//	go run ./benchmarks/evidence [-budget 10s] [-seed 1] [-run REGEXP] [-stdbg PATH] [-report]
//
// With -report it runs instead the default search as a user runs it
// (`stdbg find --no-save -j 1 --budget B --seed S`: minimisation on, text
// output) and prints, per program, when the bug was announced, when its
// first report was printed and when the command ended, from the command's
// start: the time to the first report against the time to the bug.
//
// The sampling searches (PCT, and the portfolio's PCT and random walk) use
// the given seed, so that a row repeats; times depend on the machine and
// its load, executions on the seed and, for the portfolio, which shares
// the search in time, on the machine's pace too.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// search is a column of the table: a search and its flags.
type search struct {
	name  string
	flags []string
}

var searches = []search{
	{"default (portfolio)", nil},
	{"DPOR alone", []string{"--strategy", "dfs"}},
	{"PCT alone", []string{"--strategy", "pct", "--pct-depth", "3"}},
	{"delay bounding, 2", []string{"--delays", "2"}},
}

// target is a row: a program with its own flags and environment.
type target struct {
	name  string   // as shown
	args  []string // flags before the program, the program, and after
	env   []string
	group string
}

// targets lists the bundled bug examples.
func targets() []target {
	var ts []target
	for _, f := range []string{"aba-stack.c", "abba-three.c", "c11-counter.c", "cond-timedwait.c", "crash-null.c", "crowded-handoff.c",
		"cxx-bank.cpp", "deadly-embrace.c", "dining-philosophers.c", "fork-deadlock.c", "leader-election.c", "leak.c",
		"lost-update.c", "misuse-join-twice.c", "misuse-unlock.c", "priority-inversion.c", "producer-consumer-if.c",
		"retry-gives-up.c", "spurious-wakeup.c", "start-order.c"} {
		ts = append(ts, target{name: f, args: []string{"examples/c/" + f}, group: "C"})
	}
	// (C sources are built with the memory instrumentation by default.)
	for _, f := range []string{"aba-stack.c", "check-then-act.c", "double-checked.c", "lost-update.c", "publish.c", "refcount.c",
		"ring-buffer.c", "spin-wait.c", "token-ring.c", "work-stealing.c"} {
		ts = append(ts, target{name: "memory/" + f, args: []string{"examples/c/memory/" + f}, group: "C, plain memory"})
	}
	// Kernels of issue 34: a test-and-set lock of C11 atomics with
	// sched_yield in its wait loop.
	ts = append(ts, target{name: "evidence/spin-tas.c", args: []string{"benchmarks/evidence/kernels/spin-tas.c"}, group: "C, plain memory"})
	// Spin loops (docs/spin.md): a lost update under a test-and-set lock,
	// retries that count in thread-local storage and on the heap, a spin
	// nothing ends.
	for _, f := range []string{"tas-lost-update.c", "tls-retry.c", "heap-retry.c", "spin-forever.c"} {
		ts = append(ts, target{name: "spin/" + f, args: []string{"examples/c/spin/" + f}, group: "C, spin loops"})
	}
	for _, d := range []string{"embrace-prog", "leak-prog", "exit-prog"} {
		ts = append(ts, target{name: "go/" + d, args: []string{"./examples/go/" + d}, group: "Go (sthread)"})
	}
	ts = append(ts, target{name: "go/embrace-test", args: []string{"--run", "TestEmbrace", "./examples/go/embrace-test"}, group: "Go (sthread)"})
	for _, d := range []string{"atomiccount", "atomicflag", "closesend", "condsignal", "counter", "ctxcancel", "ctxleak", "doublelock",
		"fanin", "longsetup", "lottery", "rwrecursive", "timeoutleak", "timerstop", "wgchan"} {
		ts = append(ts, target{name: "plain/" + d, args: []string{"./examples/go/plain/" + d}, group: "plain Go"})
	}
	ts = append(ts, target{name: "plain/transfer", args: []string{"--run", "^TestTransfer$", "./examples/go/plain/transfer"},
		env: []string{"STDBG_ZOO=1"}, group: "plain Go"})
	ts = append(ts, target{name: "plain/spinwait", args: []string{"--run", "^TestRetryGivesUp$", "./examples/go/plain/spinwait"},
		env: []string{"STDBG_ZOO=1"}, group: "plain Go"})
	for _, k := range []string{"WatchLeakAfterTimeout", "CallbackUnderLock", "HandshakeBothWait", "FirstErrorLeaksOthers",
		"SelectMissingStop", "WaitGroupAddInGoroutine", "CondLostSignal", "RecursiveReadLock", "CancelledRequestLeaksHandler",
		"TransferAudit", "DroppedNotification", "WaitGroupDoneTwice", "SendUnderLock", "RangeNeverClosed", "DoubleUnlock",
		"DoubleClose", "SendAfterClose", "UnlockedMapWrites", "GaugeReadWithoutLock", "CheckThenStart", "LazyMapInit",
		"TimeoutLeaksFastWorker", "ExpiryBeforeStop", "RetryLogsAfterTheTest", "TimerLogsAfterTheTest", "CancelBeforeTheWorkerStarts",
		"PollGivesUpEarly", "PollerOutlivesTheTest", "JobsAfterSpinWait", "PollTimesOutUnderLoad"} {
		ts = append(ts, target{name: "kernels/" + k, args: []string{"--run", "^Test" + k + "$", "./examples/go/kernels"},
			env: []string{"STDBG_ZOO=1"}, group: "Go kernels"})
	}
	return ts
}

// outcome is one run: whether it found a bug, after how many executions
// and how long, and who found it.
type outcome struct {
	found      bool
	executions int64
	seconds    float64
	by         string
	failed     string // find did not run (exit 2): its message
}

func main() {
	budget := flag.Duration("budget", 10*time.Second, "the budget of one search")
	seed := flag.Int64("seed", 1, "the seed of the sampling searches")
	run := flag.String("run", "", "only the programs whose name matches this regular expression")
	bin := flag.String("stdbg", os.Getenv("STDBG"), "the stdbg to run (default: built from this tree)")
	reports := flag.Bool("report", false, "measure the time to the first report against the time to the bug, minimisation on")
	flag.Parse()
	only, err := regexp.Compile(*run)
	if err != nil || *budget <= 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: evidence [-budget 10s] [-seed 1] [-run REGEXP] [-stdbg PATH] [-report]")
		os.Exit(2)
	}
	if *bin == "" {
		dir, err := os.MkdirTemp("", "stdbg-evidence-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "evidence:", err)
			os.Exit(1)
		}
		defer os.RemoveAll(dir)
		*bin = filepath.Join(dir, "stdbg")
		if out, err := exec.Command("go", "build", "-o", *bin, "./cmd/stdbg").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "evidence: building stdbg: %v\n%s", err, out)
			os.Exit(1)
		}
	}
	run1 := measure
	if *reports {
		run1 = measureReports
	}
	if err := run1(os.Stdout, *bin, only, *budget, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "evidence:", err)
		os.Exit(1)
	}
}

func measure(w io.Writer, bin string, only *regexp.Regexp, budget time.Duration, seed int64) error {
	fmt.Fprintf(w, "Machine: %s/%s, %d CPUs, %s. Budget %s per search, seed %d, -j 1.\n\n", runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), time.Now().UTC().Format("2006-01-02 15:04 UTC"), budget, seed)
	header := "| program |"
	rule := "|---|"
	for _, s := range searches {
		header += " " + s.name + " |"
		rule += "---|"
	}
	fmt.Fprintln(w, header)
	fmt.Fprintln(w, rule)
	found := make([]int, len(searches))
	rows := 0
	var worst float64
	worstName := ""
	for _, t := range targets() {
		if !only.MatchString(t.name) {
			continue
		}
		rows++
		line := "| " + t.name + " |"
		for i, s := range searches {
			o, err := find(bin, t, s, budget, seed)
			if err != nil {
				return fmt.Errorf("%s, %s: %w", t.name, s.name, err)
			}
			line += " " + cell(o) + " |"
			if o.found {
				found[i]++
			}
			if i == 0 {
				secs := o.seconds
				if !o.found {
					secs = budget.Seconds()
				}
				if secs > worst {
					worst, worstName = secs, t.name
				}
			}
		}
		fmt.Fprintln(w, line)
	}
	line := fmt.Sprintf("| **bugs found** (of %d) |", rows)
	for _, n := range found {
		line += fmt.Sprintf(" **%d** |", n)
	}
	fmt.Fprintln(w, line)
	fmt.Fprintf(w, "\nThe default's slowest first bug: %s (%.2f s).\n", worstName, worst)
	return nil
}

// cell renders an outcome: "0.12 s, 35 ex." and who found it, or "-".
func cell(o outcome) string {
	switch {
	case o.failed != "":
		return "error: " + o.failed
	case !o.found:
		return "-"
	}
	c := fmt.Sprintf("%s, %d ex.", seconds(o.seconds), o.executions)
	if o.by != "" && o.by != "DPOR" {
		c += " (" + strings.SplitN(o.by, " (", 2)[0] + ")"
	}
	return c
}

func seconds(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%.2f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}

// find runs one search of t and reads its JSON result.
func find(bin string, t target, s search, budget time.Duration, seed int64) (outcome, error) {
	args := []string{"find", "--json", "--no-minimise", "--no-save", "--quiet", "-j", "1", "--budget", budget.String(),
		"--seed", fmt.Sprint(seed)}
	args = append(append(args, s.flags...), t.args...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), t.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		return outcome{}, err
	}
	if code == 2 {
		return outcome{failed: strings.TrimSpace(strings.TrimPrefix(stderr.String(), "stdbg: "))}, nil
	}
	var res struct {
		Bugs []struct {
			FoundBy string `json:"found_by"`
		} `json:"bugs"`
		Stats struct {
			Executions int64   `json:"executions"`
			Seconds    float64 `json:"seconds"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return outcome{}, fmt.Errorf("exit %d, %v:\n%s%s", code, err, stdout.String(), stderr.String())
	}
	o := outcome{found: len(res.Bugs) > 0, executions: res.Stats.Executions, seconds: res.Stats.Seconds}
	if o.found {
		o.by = res.Bugs[0].FoundBy
	}
	return o, nil
}
