package racefree_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/internal/testkit/racefree"
)

// The campaign's flags: it runs only when -racefree.duration or
// -racefree.n is given (never in the ordinary go test ./...).
var (
	campaignFor   = flag.Duration("racefree.duration", 0, "TestCampaign: run batches of generated tests for this long")
	campaignN     = flag.Int("racefree.n", 0, "TestCampaign: run this many seeds (with -racefree.duration: whichever ends first)")
	campaignSeed  = flag.Uint64("racefree.seed", 1, "TestCampaign: the first seed")
	campaignBatch = flag.Int("racefree.batch", 16, "TestCampaign: seeds per batch (one module, one build)")
	campaignK     = flag.Int("racefree.k", 3, "TestCampaign: idioms per test")
	campaignRuns  = flag.Int("racefree.runs", 12, "TestCampaign: runs of each test under go test -race, over -cpu 1,2,4")
	campaignBud   = flag.Duration("racefree.budget", 3*time.Second, "TestCampaign: stdbg test's --budget per test")
	campaignStdbg = flag.String("racefree.stdbg", "", "TestCampaign: the stdbg binary to run (default: built from this tree)")
	campaignOut   = flag.String("racefree.out", "", "TestCampaign: directory for the progress log, the summary and each disagreement (default: a new temporary directory, printed)")
)

// TestCampaign is the long generated campaign of issue 43 (docs/oracle.md,
// "Real Go as the judge"): for each seed, the correct test of its idioms
// (TestGen<seed>) and the same test with a bug planted among them
// (TestPlant<seed>, the bugs in turn). Plain Go judges both: go test -race
// must pass every correct test in every run, and how often it shows each
// planted bug is recorded. stdbg test, the race detector on as users run
// it, must report nothing on a correct test (ok or incomplete) and the
// planted bug, of its kind, on every planted one. Every disagreement is
// reduced (which of the test's idioms it needs) and written to the output
// directory; the test fails if there was one.
//
//	go test -c -o racefree.test ./internal/testkit/racefree
//	nice -n 19 ./racefree.test -test.run Campaign -test.timeout 0 -racefree.duration 1h
func TestCampaign(t *testing.T) {
	if *campaignFor <= 0 && *campaignN <= 0 {
		t.Skip("the campaign runs with -racefree.duration or -racefree.n")
	}
	out := *campaignOut
	if out == "" {
		var err error
		if out, err = os.MkdirTemp("", "racefree-campaign-"); err != nil {
			t.Fatal(err)
		}
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	stdbg := *campaignStdbg
	if stdbg == "" {
		stdbg = filepath.Join(work, "stdbg")
		if b, err := exec.Command("go", "build", "-o", stdbg, "github.com/stdbg/stdbg/cmd/stdbg").CombinedOutput(); err != nil {
			t.Fatalf("building stdbg: %v\n%s", err, b)
		}
	}
	c := &campaign{t: t, stdbg: stdbg, work: work, out: out, st: newStats()}
	c.logf("campaign: seeds from %d, %d per batch, %d idioms per test, %d go test -race runs of each, stdbg test --budget %s; output in %s",
		*campaignSeed, *campaignBatch, *campaignK, *campaignRuns, *campaignBud, out)
	start := time.Now()
	seed := *campaignSeed
	for batch := 1; ; batch++ {
		if *campaignFor > 0 && time.Since(start) >= *campaignFor {
			break
		}
		n := *campaignBatch
		if *campaignN > 0 {
			n = min(n, int(*campaignSeed)+*campaignN-int(seed))
			if n <= 0 {
				break
			}
		}
		var seeds []uint64
		for i := range n {
			seeds = append(seeds, seed+uint64(i))
		}
		seed += uint64(n)
		c.batch(batch, seeds)
		c.logf("batch %d (seeds %d-%d) done after %s, load %s: %s", batch, seeds[0], seeds[len(seeds)-1],
			time.Since(start).Round(time.Second), loadAverage(), c.st.short())
	}
	summary := c.st.String(*campaignSeed, seed-1, time.Since(start))
	if err := os.WriteFile(filepath.Join(out, "summary.md"), []byte(summary), 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("\n%s", summary)
	if c.st.disagreements > 0 {
		t.Errorf("%d disagreements, written to %s", c.st.disagreements, out)
	}
}

// A campaign runs batches and counts.
type campaign struct {
	t                *testing.T
	stdbg, work, out string
	st               *stats
}

// stats are what a campaign saw.
type stats struct {
	correct, planted int
	// stdbgCorrect and stdbgPlanted count stdbg test's statuses.
	stdbgCorrect, stdbgPlanted map[string]int
	// goCorrectFailed counts correct tests go test -race failed (a
	// generator error); goRuns and goFailed the runs of each bug's
	// planted tests and those that failed; found the planted tests of
	// each bug stdbg reported, of its kind; goNever those go test -race
	// never failed in its runs.
	goCorrectFailed        int
	goRuns, goFailed       map[string]int
	found, tests, goNever  map[string]int
	disagreements, batches int
	hangs                  int
	// byKind counts the disagreements of each kind (what).
	byKind map[string]int
}

func newStats() *stats {
	return &stats{stdbgCorrect: map[string]int{}, stdbgPlanted: map[string]int{}, goRuns: map[string]int{},
		goFailed: map[string]int{}, found: map[string]int{}, tests: map[string]int{}, goNever: map[string]int{}, byKind: map[string]int{}}
}

func (s *stats) short() string {
	return fmt.Sprintf("%d correct tests (stdbg %v), %d planted (stdbg %v), %d disagreements", s.correct, s.stdbgCorrect, s.planted, s.stdbgPlanted, s.disagreements)
}

// String is the campaign's result as markdown.
func (s *stats) String(from, to uint64, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Seeds %d-%d, %d batches, %s, ended %s.\n\n", from, to, s.batches, took.Round(time.Second), time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "Correct tests: %d; go test -race failed %d of them; stdbg test: %s.\n\n", s.correct, s.goCorrectFailed, statuses(s.stdbgCorrect))
	fmt.Fprintf(&b, "Planted bugs: %d; stdbg test: %s.\n\n", s.planted, statuses(s.stdbgPlanted))
	b.WriteString("| bug | tests | go test -race: runs failed | tests go never failed | stdbg test reported it |\n|---|---:|---:|---:|---:|\n")
	for _, bug := range racefree.Bugs() {
		n := bug.Name
		fmt.Fprintf(&b, "| %s | %d | %d of %d | %d | %d |\n", n, s.tests[n], s.goFailed[n], s.goRuns[n], s.goNever[n], s.found[n])
	}
	fmt.Fprintf(&b, "\nDisagreements: %d (%s); searches that did not end: %d.\n", s.disagreements, statuses(s.byKind), s.hangs)
	return b.String()
}

func statuses(m map[string]int) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}

// logf prints a line of progress and appends it to the output's log.
func (c *campaign) logf(format string, args ...any) {
	line := time.Now().UTC().Format("15:04:05 ") + fmt.Sprintf(format, args...) + "\n"
	fmt.Fprint(os.Stderr, line)
	f, err := os.OpenFile(filepath.Join(c.out, "progress.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		f.WriteString(line)
		f.Close()
	}
}

// A genTest is a test of a batch.
type genTest struct {
	name string
	seed uint64
	bug  int // -1: correct
	code string
}

// tests returns the batch's tests: a correct and a planted one for each
// seed, the bugs in turn.
func batchTests(seeds []uint64) []genTest {
	var ts []genTest
	nb := uint64(len(racefree.Bugs()))
	for _, s := range seeds {
		code, _ := racefree.Test(fmt.Sprintf("TestGen%d", s), s, *campaignK)
		ts = append(ts, genTest{fmt.Sprintf("TestGen%d", s), s, -1, code})
		bug := int(s % nb)
		code, _ = racefree.Planted(fmt.Sprintf("TestPlant%d", s), s, *campaignK, bug)
		ts = append(ts, genTest{fmt.Sprintf("TestPlant%d", s), s, bug, code})
	}
	return ts
}

// module writes a module holding the tests in package gen and returns its
// directory.
func (c *campaign) module(name string, tests []string, imports []string) string {
	dir := filepath.Join(c.work, name)
	os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "gen"), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/racefree\n\ngo 1.26\n"), 0o644); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gen", "gen_test.go"), []byte(racefree.Join("gen", tests, imports)), 0o644); err != nil {
		c.t.Fatal(err)
	}
	return dir
}

// batch runs the tests of the seeds under go test -race and stdbg test.
func (c *campaign) batch(n int, seeds []uint64) {
	c.st.batches++
	ts := batchTests(seeds)
	var codes, imports []string
	for _, gt := range ts {
		codes = append(codes, gt.code)
	}
	for _, s := range seeds {
		_, imp := racefree.Test("T", s, *campaignK)
		imports = append(imports, imp...)
		_, imp = racefree.Planted("T", s, *campaignK, int(s%uint64(len(racefree.Bugs()))))
		imports = append(imports, imp...)
	}
	dir := c.module(fmt.Sprintf("batch%d", n), codes, imports)
	bin := filepath.Join(dir, "gen.test")
	if b, err := run(dir, 10*time.Minute, "go", "test", "-c", "-race", "-o", bin, "./gen"); err != nil {
		c.t.Fatalf("batch %d: go test -c -race: %v\n%s", n, err, b)
	}
	// Plain Go on the correct tests: every run passes.
	per := max(1, *campaignRuns/3)
	b, err := run(dir, 20*time.Minute, bin, "-test.run", "^TestGen", "-test.count", fmt.Sprint(per), "-test.cpu", "1,2,4", "-test.timeout", "15m")
	goFailed := map[string]bool{}
	if err != nil {
		for _, m := range regexp.MustCompile(`--- FAIL: (TestGen\d+)`).FindAllStringSubmatch(string(b), -1) {
			goFailed[m[1]] = true
		}
		if len(goFailed) == 0 {
			c.finding("go-correct", fmt.Sprintf("batch %d: go test -race failed on the correct tests, none named", n), string(b))
		}
	}
	// Plain Go on each planted test, one process a run (a race is
	// reported once per process, a panic ends it).
	goShows := map[string]int{}
	for _, gt := range ts {
		if gt.bug < 0 {
			continue
		}
		for i := range *campaignRuns {
			cpu := []string{"1", "2", "4"}[i%3]
			_, err := run(dir, 2*time.Minute, bin, "-test.run", "^"+gt.name+"$", "-test.count", "1", "-test.cpu", cpu, "-test.timeout", "60s")
			if err != nil {
				goShows[gt.name]++
			}
		}
	}
	// stdbg test, as users run it.
	cache := filepath.Join(c.work, "testcache")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.stdbg, "test", "-count=1", "--no-save", "--budget", campaignBud.String(), "./gen")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "STDBG_TEST_CACHE="+cache)
	cmd.WaitDelay = time.Minute
	sb, _ := cmd.CombinedOutput() // exit status 1: a bug was found
	if ctx.Err() != nil {
		c.st.hangs++
		c.finding(fmt.Sprintf("hang-batch%d", n), fmt.Sprintf("batch %d: stdbg test did not end in 30 minutes", n), string(sb))
	}
	blocks := testBlocks(string(sb))
	for _, gt := range ts {
		blk, ok := blocks[gt.name]
		status := "missing"
		if ok {
			status = blk.status
		}
		if gt.bug < 0 {
			c.st.correct++
			c.st.stdbgCorrect[status]++
			if goFailed[gt.name] {
				c.st.goCorrectFailed++
				c.finding(gt.name, fmt.Sprintf("%s: go test -race fails a correct test (the generator is wrong)", gt.name), gt.code+"\n"+string(b))
			}
			if status != "ok" && status != "incomplete" {
				c.disagree(gt, status, blk.text)
			}
			continue
		}
		bug := racefree.Bugs()[gt.bug]
		c.st.planted++
		c.st.stdbgPlanted[status]++
		c.st.tests[bug.Name]++
		c.st.goRuns[bug.Name] += *campaignRuns
		c.st.goFailed[bug.Name] += goShows[gt.name]
		if goShows[gt.name] == 0 {
			c.st.goNever[bug.Name]++
		}
		if status == "BUG" && ofKind(blk.text, bug.Kind) {
			c.st.found[bug.Name]++
			continue
		}
		c.disagree(gt, status, blk.text)
	}
}

// ofKind tells whether a report is of a bug of the kind.
func ofKind(report, kind string) bool {
	switch kind {
	case "race":
		return strings.Contains(report, "DATA RACE")
	case "assertion":
		return strings.Contains(report, "lost update under a lock:")
	case "panic":
		return strings.Contains(report, "close of closed channel") || strings.Contains(report, "after Test") ||
			strings.Contains(report, "has completed")
	}
	return false
}

// disagree records a disagreement and reduces it: which idioms of the
// test, alone (and a planted bug with each other idiom), still disagree.
func (c *campaign) disagree(gt genTest, status, report string) {
	c.st.disagreements++
	what := "a report on a correct test"
	if gt.bug >= 0 {
		what = fmt.Sprintf("the planted bug (%s) not reported", racefree.Bugs()[gt.bug].Name)
		if status == "FAIL" && ofKind(report, racefree.Bugs()[gt.bug].Kind) {
			// stdbg test fails the test, but by its run as go test runs
			// it: the search missed the bug within its budget.
			what = fmt.Sprintf("the planted bug (%s) missed by the search, shown by the run as go test runs it", racefree.Bugs()[gt.bug].Name)
		}
	}
	c.st.byKind[what]++
	c.logf("DISAGREEMENT %s: %s: stdbg test said %s", gt.name, what, status)
	// A correct test: each idiom alone, each pair; a planted bug: alone,
	// and with each idiom.
	var kept [][]int
	if gt.bug >= 0 {
		kept = append(kept, []int{})
	}
	for i := range *campaignK {
		kept = append(kept, []int{i})
		for j := i + 1; j < *campaignK && gt.bug < 0; j++ {
			kept = append(kept, []int{i, j})
		}
	}
	var codes, imports []string
	for i, keep := range kept {
		code, imp := racefree.Reduced(fmt.Sprintf("TestKeep%d", i), gt.seed, *campaignK, gt.bug, keep)
		codes = append(codes, code)
		imports = append(imports, imp...)
	}
	dir := c.module("reduce-"+gt.name, codes, imports)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.stdbg, "test", "-count=1", "--no-save", "--budget", campaignBud.String(), "./gen")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "STDBG_TEST_CACHE="+filepath.Join(c.work, "testcache"))
	cmd.WaitDelay = time.Minute
	rb, _ := cmd.CombinedOutput()
	blocks := testBlocks(string(rb))
	var smallest []string
	for i, keep := range kept {
		blk := blocks[fmt.Sprintf("TestKeep%d", i)]
		bad := (gt.bug < 0 && blk.status != "ok" && blk.status != "incomplete") ||
			(gt.bug >= 0 && !(blk.status == "BUG" && ofKind(blk.text, racefree.Bugs()[gt.bug].Kind)))
		if bad {
			smallest = append(smallest, fmt.Sprintf("TestKeep%d (idioms %v): %s", i, keep, blk.status))
		}
	}
	text := fmt.Sprintf("%s: %s; stdbg test said %s\n\nreduced (stdbg test on each subset of its idioms): %s\n\n%s\n\nstdbg test:\n%s\n\nreductions:\n%s\n%s",
		gt.name, what, status, strings.Join(smallest, "; "), gt.code, report, strings.Join(codes, "\n"), rb)
	c.finding(gt.name, fmt.Sprintf("%s: %s (stdbg: %s); reduced: %s", gt.name, what, status, strings.Join(smallest, "; ")), text)
}

// finding writes a finding to the output directory.
func (c *campaign) finding(name, line, text string) {
	c.logf("finding: %s", line)
	os.WriteFile(filepath.Join(c.out, name+".txt"), []byte(text), 0o644)
	f, err := os.OpenFile(filepath.Join(c.out, "findings.md"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		fmt.Fprintf(f, "- %s\n", line)
		f.Close()
	}
}

// A block is what stdbg test said of a test: its status and its lines.
type block struct{ status, text string }

var statusLine = regexp.MustCompile(`^(ok|BUG|incomplete|SKIP|FAIL|ERROR) +(Test\w+)`)

// testBlocks splits stdbg test's output by test.
func testBlocks(out string) map[string]block {
	blocks := map[string]block{}
	var name string
	var cur block
	flush := func() {
		if name != "" {
			blocks[name] = cur
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if m := statusLine.FindStringSubmatch(line); m != nil {
			flush()
			name, cur = m[2], block{status: m[1]}
		} else if strings.HasPrefix(line, "ok\t") || strings.HasPrefix(line, "FAIL\t") || strings.HasPrefix(line, "stdbg test:") {
			flush()
			name = ""
		}
		if name != "" {
			cur.text += line + "\n"
		}
	}
	flush()
	return blocks
}

// run runs a command in dir with a time limit and returns its output.
func run(dir string, limit time.Duration, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.WaitDelay = 10 * time.Second
	b, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = errors.Join(err, fmt.Errorf("did not end in %s", limit))
	}
	return b, err
}

// loadAverage is the first field of /proc/loadavg, "?" where there is none.
func loadAverage() string {
	if runtime.GOOS != "linux" {
		return "?"
	}
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}
