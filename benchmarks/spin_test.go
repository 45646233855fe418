package benchmarks

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// BenchmarkSpinTargets runs stdbg as a user does (the command line, its
// default search, the build cached) on the spin loops of issue 45
// (docs/spin.md) and reports each command's wall time with what it found:
//
//   - TASLock: the test-and-set lock of examples/c/spin/tas-lock.c, two
//     threads adding twice each, exhausted (target: under 2 s);
//
//   - TASLostUpdate: its variant with the counter read and written in two
//     critical sections, found and its schedule proven minimal (target:
//     under 5 s);
//
//   - GoSpinWait: stdbg test -count=1 of examples/go/plain/spinwait's
//     TestPublish, for !ready.Load() {} (target: ok, under 2 s): the
//     test's own time as stdbg test shows it, and the whole command's
//     (with go list, the instrumented build from the cache, the link);
//
//   - Estimate: the share of DPOR's tree the progress line shows while a
//     25 s search of readers-writers(5) runs, against the one its verdict
//     gives (target: within 2×).
//
//     go test -run '^$' -bench SpinTargets -benchtime 1x ./benchmarks
func BenchmarkSpinTargets(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "stdbg")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/stdbg").CombinedOutput(); err != nil {
		b.Fatalf("building stdbg: %v\n%s", err, out)
	}
	// run runs stdbg, once for the cache before the ops; the status 1
	// of a bug found is no error.
	run := func(b *testing.B, args ...string) ([]byte, []byte, time.Duration) {
		b.Helper()
		var out, errb bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Dir = ".."
		cmd.Stdout, cmd.Stderr = &out, &errb
		t0 := time.Now()
		err := cmd.Run()
		d := time.Since(t0)
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
			b.Fatalf("stdbg %v: %v\n%s\n%s", args, err, out.Bytes(), errb.Bytes())
		}
		return out.Bytes(), errb.Bytes(), d
	}
	type found struct {
		Complete bool `json:"complete"`
		Stats    struct {
			Executions int64 `json:"executions"`
		} `json:"stats"`
		Bugs []struct {
			Kind      string `json:"kind"`
			Minimised *struct {
				Proven bool `json:"proven_minimal"`
			} `json:"minimised"`
		} `json:"bugs"`
	}
	find := func(b *testing.B, file string) {
		args := []string{"find", "--json", "--no-save", "examples/c/spin/" + file}
		run(b, args...)
		var total time.Duration
		var f found
		for b.Loop() {
			out, _, d := run(b, args...)
			total += d
			if err := json.Unmarshal(out, &f); err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
		}
		b.ReportMetric(total.Seconds()/float64(b.N), "s/search")
		b.ReportMetric(float64(f.Stats.Executions), "executions")
		complete, proven := 0.0, 0.0
		if f.Complete {
			complete = 1
		}
		if len(f.Bugs) > 0 && f.Bugs[0].Minimised != nil && f.Bugs[0].Minimised.Proven {
			proven = 1
		}
		b.ReportMetric(complete, "exhaustive")
		b.ReportMetric(float64(len(f.Bugs)), "bugs")
		b.ReportMetric(proven, "proven-minimal")
	}
	b.Run("TASLock", func(b *testing.B) { find(b, "tas-lock.c") })
	b.Run("TASLostUpdate", func(b *testing.B) { find(b, "tas-lost-update.c") })
	b.Run("GoSpinWait", func(b *testing.B) {
		args := []string{"test", "-count=1", "-run", "^TestPublish$", "./examples/go/plain/spinwait"}
		run(b, args...)
		status := regexp.MustCompile(`ok +TestPublish \(([0-9.]+)s\): exhaustive`)
		var total time.Duration
		var search float64
		ok := 0.0
		for b.Loop() {
			out, _, d := run(b, args...)
			total += d
			ok = 0
			if m := status.FindSubmatch(out); m != nil {
				ok = 1
				v, _ := strconv.ParseFloat(string(m[1]), 64)
				search += v
			}
		}
		b.ReportMetric(total.Seconds()/float64(b.N), "s/command")
		b.ReportMetric(search/float64(b.N), "s/test")
		b.ReportMetric(ok, "ok-exhaustive")
	})
	b.Run("Estimate", func(b *testing.B) {
		live := regexp.MustCompile(`~([0-9.]+)% explored`)
		final := regexp.MustCompile(`about ([0-9.]+)% of its tree explored`)
		var ratio float64
		for b.Loop() {
			out, errs, _ := run(b, "find", "--no-save", "--strategy", "portfolio", "--budget", "25s", "examples/c/dpor/readers-writers.c", "--", "5")
			l, f := live.FindAllSubmatch(errs, -1), final.FindSubmatch(out)
			if len(l) == 0 || f == nil {
				b.Skipf("no estimate to compare (the search ended, or printed none):\n%s\n%s", out, errs)
			}
			a, _ := strconv.ParseFloat(string(l[len(l)-1][1]), 64)
			z, _ := strconv.ParseFloat(string(f[1]), 64)
			ratio = max(a, z) / max(min(a, z), 1e-9)
		}
		b.ReportMetric(ratio, "live/final")
	})
}
