package grade_test

// The exercise set is graded by these tests: every reference must score
// full marks, and every wrong answer must lose the points of the checks
// its wrong/NAME/expect.yaml names (and only those), with the hints it
// names. Grading all of it takes minutes, so:
//
//	go test ./frontend/grade                  a representative subset (seconds)
//	go test -short ./frontend/grade           the subset without its Go submission
//	go test ./frontend/grade -grade.all       every reference and wrong answer of
//	                                 exercises/, each graded twice for
//	                                 determinism too, and the sandbox tests
//	go test -run '^$' -bench Exercises ./frontend/grade
//	                                 the whole set as a benchmark (time per
//	                                 submission)

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/frontend/grade"
)

// gradeAll grades every exercise's reference and wrong answers; by
// default a representative few are.
var gradeAll = flag.Bool("grade.all", false, "grade every reference and wrong answer of exercises/ (minutes)")

// representative are the submissions graded by default: references and
// wrong answers that cover each kind of check (race checks built with
// --memory, the ltl check under strong fairness, tests), the hints that
// are hardest to recognise, and one Go submission (the build through
// goinstr and the search inside the target). The names are checked to
// exist.
var representative = []string{
	"c/counter/wrong/local-mutex",
	"c/bounded-buffer/wrong/if-wait",
	"c/semaphore/solution",
	"c/semaphore/wrong/unlocked-up",
	"c/semaphore/wrong/if-wait",
	"c/readers-writers/solution",
	"c/readers-writers/wrong/readers-first",
	"c/dining-philosophers/wrong/left-then-right",
	"c/barrier/wrong/count-only",
	"go/token-ring/wrong/wired-to-self",
}

// patterns are the hints an expect.yaml may name.
var patterns = []string{
	grade.PatternWaitUnderIf, grade.PatternSignalOne, grade.PatternLostWakeup, grade.PatternLockOrder,
	grade.PatternAddInside, grade.PatternUnlockMissing, grade.PatternNeverClosed, grade.PatternNoCancel,
	grade.PatternUnprotected, grade.PatternNoSignal, grade.PatternWaitNoLock, grade.PatternWaitInWorker,
	grade.PatternDoneMissing, grade.PatternUnlockTwice, grade.PatternCancelOpen, grade.PatternSignalNoLock,
	grade.PatternStaleWake, grade.PatternStarved, grade.PatternLocalSync, grade.PatternSelfSend,
	grade.PatternSendClosed, grade.PatternBusyWait, grade.PatternTryGivesUp, grade.PatternRetryLivelock,
	grade.PatternSplitSection, grade.PatternHeldByCaller, grade.PatternNoCommonLock, grade.PatternCheckOutside,
	grade.PatternPassedWithout, grade.PatternNeverRestored, grade.PatternCloseClosed, grade.PatternWaitFirst,
	grade.PatternNoReceiver, grade.PatternLockUpgrade, grade.PatternCtxNeverCancelled, grade.PatternDoneEarly,
}

// expect is a wrong answer's expected grading (wrong/NAME/expect.yaml):
// the checks it fails, and the hints it gets.
type expect struct {
	Fails []string `yaml:"fails"`
	Hints []string `yaml:"hints"`
	// Racy says the answer's mistake leaves memory shared without
	// synchronisation (a read of a shared variable outside the lock, or
	// a meal of the harness's eaten without the forks that protect its
	// state): a check built without the
	// memory instrumentation does not see those accesses, so its
	// minimisation may find that the model does not fit the program.
	// Every other submission's failures must fit it: a harness whose
	// shared state the checker does not see is the harness's bug.
	Racy bool `yaml:"racy"`
}

type submission struct {
	name, dir  string
	assignment string
	want       *expect // nil: the reference, full marks
}

func submissions(t testing.TB) []submission {
	root := filepath.Join("..", "..", "exercises")
	asgs, err := filepath.Glob(filepath.Join(root, "*", "*", "assignment.yaml"))
	if err != nil || len(asgs) == 0 {
		t.Fatalf("no exercises under %s: %v", root, err)
	}
	var out []submission
	for _, a := range asgs {
		ex := filepath.Dir(a)
		rel, _ := filepath.Rel(root, ex)
		out = append(out, submission{name: rel + "/solution", dir: filepath.Join(ex, "solution"), assignment: a})
		wrongs, _ := filepath.Glob(filepath.Join(ex, "wrong", "*"))
		for _, w := range wrongs {
			b, err := os.ReadFile(filepath.Join(w, "expect.yaml"))
			if err != nil {
				t.Fatalf("%s: %v", w, err)
			}
			var e expect
			if err := yaml.Unmarshal(b, &e); err != nil {
				t.Fatalf("%s: %v", w, err)
			}
			out = append(out, submission{name: rel + "/wrong/" + filepath.Base(w), dir: w, assignment: a, want: &e})
		}
	}
	return out
}

// TestExerciseSet checks the shape of exercises/ without grading: at
// least sixteen exercises, in C and Go, each with its statement, starter
// code, an assignment that loads, a reference solution and at least four
// wrong answers whose expect.yaml names checks of the assignment and known
// hints.
func TestExerciseSet(t *testing.T) {
	subs := submissions(t)
	exercises := map[string]*grade.Assignment{}
	wrongs := map[string]int{}
	for _, s := range subs {
		ex := strings.SplitN(s.name, "/", 3)[:2]
		key := strings.Join(ex, "/")
		a, ok := exercises[key]
		if !ok {
			var err error
			if a, err = grade.Load(s.assignment); err != nil {
				t.Errorf("%s: %v", key, err)
				continue
			}
			exercises[key] = a
			dir := filepath.Dir(s.assignment)
			for _, f := range []string{"README.md"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("%s has no %s", key, f)
				}
			}
			for _, f := range a.Submit {
				for _, sub := range []string{"starter", "solution"} {
					if _, err := os.Stat(filepath.Join(dir, sub, f)); err != nil {
						t.Errorf("%s: no %s/%s", key, sub, f)
					}
				}
			}
		}
		if s.want == nil {
			continue
		}
		wrongs[key]++
		if len(s.want.Fails) == 0 || len(s.want.Hints) == 0 {
			t.Errorf("%s/expect.yaml must name the checks it fails and the hints it gets", s.name)
		}
		for _, f := range s.want.Fails {
			if !slices.ContainsFunc(a.Checks, func(c grade.Check) bool { return c.Name == f }) {
				t.Errorf("%s/expect.yaml: no check %q in %s", s.name, f, s.assignment)
			}
		}
		for _, h := range s.want.Hints {
			if !slices.Contains(patterns, h) {
				t.Errorf("%s/expect.yaml: unknown hint %q", s.name, h)
			}
		}
	}
	languages := map[string]int{}
	for key, a := range exercises {
		languages[a.Language]++
		if wrongs[key] < 4 {
			t.Errorf("%s has %d wrong answers, want at least 4", key, wrongs[key])
		}
	}
	if len(exercises) < 16 || languages["c"] == 0 || languages["go"] == 0 {
		t.Errorf("%d exercises (%v), want at least sixteen in C and Go", len(exercises), languages)
	}
	for _, name := range representative {
		if !slices.ContainsFunc(subs, func(s submission) bool { return s.name == name }) {
			t.Errorf("representative submission %s does not exist", name)
		}
	}
}

func TestGradeExercises(t *testing.T) {
	for _, sub := range submissions(t) {
		if !*gradeAll && !slices.Contains(representative, sub.name) {
			continue
		}
		if testing.Short() && strings.HasPrefix(sub.name, "go/") && !*gradeAll {
			// A Go submission builds twice (with and without the race
			// detector): seconds.
			continue
		}
		t.Run(sub.name, func(t *testing.T) {
			a, err := grade.Load(sub.assignment)
			if err != nil {
				t.Fatal(err)
			}
			res, err := grade.Grade(context.Background(), a, sub.dir, grade.Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkGrading(t, sub, res)
			if *gradeAll {
				stop := cpuHogs(t, 2)
				again, err := grade.Grade(context.Background(), a, sub.dir, grade.Options{})
				stop()
				if err != nil {
					t.Fatal(err)
				}
				if x, y := comparable(res), comparable(again); x != y {
					t.Errorf("two gradings differ (the second beside two CPU hogs):\n%s\n%s", x, y)
				}
			}
		})
	}
}

// checkGrading checks a graded submission against what is expected of it.
func checkGrading(t testing.TB, sub submission, res *grade.Result) {
	t.Helper()
	var text strings.Builder
	res.WriteText(&text)
	defer func() {
		if t.Failed() {
			t.Log(text.String())
		}
	}()
	if sub.want == nil {
		if res.Score != res.MaxScore {
			t.Errorf("the reference scores %g/%g", res.Score, res.MaxScore)
		}
		return
	}
	var hints []string
	for _, c := range res.Checks {
		failing := slices.Contains(sub.want.Fails, c.Name)
		switch {
		case failing && c.Score >= c.MaxScore:
			t.Errorf("check %q: full marks, want points lost", c.Name)
		case !failing && c.Score != c.MaxScore:
			t.Errorf("check %q: %g/%g, want full marks", c.Name, c.Score, c.MaxScore)
		}
		if failing && (c.Status != grade.StatusFailed || len(c.Failures) == 0) {
			t.Errorf("check %q: status %s with %d failures, want a failure to show", c.Name, c.Status, len(c.Failures))
		}
		for _, f := range c.Failures {
			if len(f.Story) == 0 || f.Replay == "" || f.Debug == "" || f.Schedule == "" {
				t.Errorf("check %q: a failure without its story, schedule or replay command", c.Name)
			}
			if m := minimisation(f); m != nil && strings.Contains(m.Unproven, "does not fit") && !sub.want.Racy {
				// The program shares memory the check's build does not
				// see (a harness counter in a plain atomic), and the
				// answer is not racy: the reduction of the search is
				// unsound for the harness.
				t.Errorf("check %q: the minimisation found executions the model does not explain (%s): make the harness's shared state visible to the checker", c.Name, m.Unproven)
			}
			for _, h := range f.Hints {
				hints = append(hints, h.Pattern)
			}
		}
	}
	for _, h := range sub.want.Hints {
		if !slices.Contains(hints, h) {
			t.Errorf("hint %q not given (got %v)", h, hints)
		}
	}
}

// minimisation is how a failure's schedule was minimised, if it was.
func minimisation(f grade.Failure) *report.Minimisation {
	if f.Report == nil {
		return nil
	}
	return f.Report.Minimised
}

// comparable is a result as JSON without what may differ from one
// grading to the next: times, the counts of the minimisation's
// executions, and the addresses in a race detector's report.
var heapAddress = regexp.MustCompile(`0x[0-9a-f]{6,}`)

func comparable(res *grade.Result) string {
	c := *res
	c.Seconds = 0
	c.Checks = slices.Clone(res.Checks)
	for k := range c.Checks {
		c.Checks[k].Seconds = 0
		c.Checks[k].Failures = slices.Clone(c.Checks[k].Failures)
		for j := range c.Checks[k].Failures {
			f := &c.Checks[k].Failures[j]
			if f.Report != nil {
				r := *f.Report
				r.Minimised = nil
				// The race detector's account names the heap addresses of
				// the accesses, which a Go program that ran earlier
				// executions in its process lays out as its garbage
				// collector's pace has it (the student reads the lines).
				r.Message = heapAddress.ReplaceAllString(r.Message, "0x…")
				f.Report = &r
			}
		}
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// TestGradeTwice grades wrong answers twice, the second time beside two
// processes that keep both CPUs busy: the same result (but the times). A
// check is bounded by what it explores, not by the wall clock, so a busy
// machine changes how long a grading takes, not its grade: the
// readers-first answer of C4 once got full marks beside two CPU hogs, its
// starvation check cut by a wall-clock budget and passed as
// "incomplete". With -grade.all, TestGradeExercises grades every
// submission twice too, the second time beside CPU hogs.
func TestGradeTwice(t *testing.T) {
	for _, s := range []struct{ assignment, dir string }{
		{"../../exercises/c/bounded-buffer/assignment.yaml", "../../exercises/c/bounded-buffer/wrong/one-cond-signal"},
		{"../../exercises/c/barrier/assignment.yaml", "../../exercises/c/barrier/wrong/count-only"},
	} {
		a, err := grade.Load(s.assignment)
		if err != nil {
			t.Fatal(err)
		}
		var docs [2]string
		for i := range docs {
			stop := func() {}
			if i == 1 {
				stop = cpuHogs(t, 2)
			}
			res, err := grade.Grade(context.Background(), a, s.dir, grade.Options{})
			stop()
			if err != nil {
				t.Fatal(err)
			}
			if res.Score == res.MaxScore {
				var text strings.Builder
				res.WriteText(&text)
				t.Fatalf("%s: full marks for a wrong answer (grading %d):\n%s", s.dir, i+1, text.String())
			}
			docs[i] = comparable(res)
		}
		if docs[0] != docs[1] {
			t.Errorf("%s: the gradings beside CPU hogs and without differ:\n%s\n%s", s.dir, docs[0], docs[1])
		}
	}
}

// cpuHogs starts n processes that spin until stop is called.
func cpuHogs(t *testing.T, n int) (stop func()) {
	t.Helper()
	var hogs []*exec.Cmd
	for range n {
		cmd := exec.Command("/bin/sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting a CPU hog: %v", err)
		}
		hogs = append(hogs, cmd)
	}
	stop = func() {
		for _, h := range hogs {
			h.Process.Kill()
			h.Wait()
		}
		hogs = nil
	}
	t.Cleanup(stop)
	return stop
}
