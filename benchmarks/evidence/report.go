package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stdbg/stdbg/internal/loadavg"
)

// reportTimes are when, from its start, a find said it found a bug (its
// announcement on stderr), printed its first report (the banner on
// stdout), and ended (minimisation done).
type reportTimes struct {
	found, report, end time.Duration
	ok                 bool // a bug was found and reported
}

// measureReports runs the default search of every target as a user runs
// it (minimisation on, text output) and prints when the bug was found,
// when its report came and when the command ended: the time to the first
// report against the time to the bug.
func measureReports(w io.Writer, bin string, only *regexp.Regexp, budget time.Duration, seed int64) error {
	fmt.Fprintf(w, "Machine: %s/%s, %d CPUs, %s, load average %s. `stdbg find --no-save -j 1 --budget %s --seed %d`, "+
		"times from the command's start.\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadavg.Read(1), budget, seed)
	fmt.Fprintln(w, "| program | bug found | first report | report / found | minimised, end |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
	var ratios []float64
	for _, t := range targets() {
		if !only.MatchString(t.name) {
			continue
		}
		rt, err := findTimed(bin, t, budget, seed)
		if err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		if !rt.ok {
			fmt.Fprintf(w, "| %s | - | - | - | %s |\n", t.name, seconds(rt.end.Seconds()))
			continue
		}
		ratio := rt.report.Seconds() / rt.found.Seconds()
		ratios = append(ratios, ratio)
		fmt.Fprintf(w, "| %s | %s | %s | %.2f | %s |\n", t.name, seconds(rt.found.Seconds()), seconds(rt.report.Seconds()),
			ratio, seconds(rt.end.Seconds()))
	}
	if len(ratios) > 0 {
		slices.Sort(ratios)
		fmt.Fprintf(w, "\nFirst report / bug found over %d programs: median %.2f, worst %.2f.\n", len(ratios),
			ratios[len(ratios)/2], ratios[len(ratios)-1])
	}
	return nil
}

// findTimed runs the default search of t and notes when its lines come.
func findTimed(bin string, t target, budget time.Duration, seed int64) (reportTimes, error) {
	args := []string{"find", "--no-save", "-j", "1", "--budget", budget.String(), "--seed", fmt.Sprint(seed)}
	cmd := exec.Command(bin, append(args, t.args...)...)
	cmd.Env = append(os.Environ(), t.env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return reportTimes{}, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return reportTimes{}, err
	}
	var rt reportTimes
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	watch := func(r io.Reader, seen func(line string, at time.Duration)) {
		defer wg.Done()
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			at := time.Since(start)
			mu.Lock()
			seen(sc.Text(), at)
			mu.Unlock()
		}
	}
	if err := cmd.Start(); err != nil {
		return reportTimes{}, err
	}
	wg.Add(2)
	go watch(stderr, func(line string, at time.Duration) {
		if rt.found == 0 && strings.HasPrefix(line, "stdbg: bug found") {
			rt.found = at
		}
	})
	go watch(stdout, func(line string, at time.Duration) {
		if rt.report == 0 && strings.HasPrefix(line, "*** ") {
			rt.report = at
		}
	})
	wg.Wait()
	err = cmd.Wait()
	rt.end = time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 2 {
		return reportTimes{}, fmt.Errorf("find failed (exit 2)")
	} else if err != nil && !ok {
		return reportTimes{}, err
	}
	rt.ok = rt.found > 0 && rt.report > 0
	return rt, nil
}
