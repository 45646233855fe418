package grade_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stdbg/stdbg/frontend/grade"
	"github.com/stdbg/stdbg/target/ctarget"
)

// BenchmarkGradeOne grades one wrong answer end to end (build, searches,
// minimisation, feedback): the time a student waits, for a C and a Go
// submission, with the submission's processes confined as this machine
// allows and without confinement (what the sandbox costs: prlimit,
// unshare and setpriv run before each process of the program).
func BenchmarkGradeOne(b *testing.B) {
	for _, s := range []struct{ name, assignment, dir string }{
		{"C", "../../exercises/c/bounded-buffer/assignment.yaml", "../../exercises/c/bounded-buffer/wrong/one-cond-signal"},
		{"Go", "../../exercises/go/worker-pool/assignment.yaml", "../../exercises/go/worker-pool/wrong/each-worker-closes"},
	} {
		a, err := grade.Load(s.assignment)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name string
			conf *grade.Confinement
		}{{"confined", nil}, {"unconfined", &grade.Confinement{User: -1}}} {
			b.Run(s.name+"/"+c.name, func(b *testing.B) {
				var cpu time.Duration
				for b.Loop() {
					start := cpuTime()
					res, err := grade.Grade(context.Background(), a, s.dir, grade.Options{Confinement: c.conf})
					cpu += cpuTime() - start
					if err != nil {
						b.Fatal(err)
					}
					if res.Score == res.MaxScore {
						b.Fatalf("%s: full marks for a wrong answer", s.dir)
					}
				}
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			})
		}
	}
}

// BenchmarkGradeExercises grades every reference and wrong answer of
// exercises/, the C ones and the Go ones apart (-bench 'Exercises/C' for
// the C ones alone), and reports the mean time per submission and the
// slowest (go test -run '^$' -bench Exercises ./frontend/grade; -v logs
// each submission's time). On a busy machine the wall time says how busy
// it was as much as what grading costs: the CPU time the grading took
// (the grader's and its children's: compilers, targets, sandbox) is
// reported too, with how many submissions took over 2 CPU-s (issue 48's
// bound for a C submission) and the slowest by name. The C library is
// built before the clock starts: a grading server has it built. A
// submission that does not get the grade its expect.yaml says (each
// check's points, the failures shown, the hints) fails the benchmark, as
// it fails TestGradeExercises.
func BenchmarkGradeExercises(b *testing.B) {
	subs := submissions(b)
	if _, err := ctarget.Library(); err != nil {
		b.Fatal(err)
	}
	for _, lang := range []string{"C", "Go"} {
		prefix := strings.ToLower(lang) + "/"
		var mine []submission
		for _, s := range subs {
			if strings.HasPrefix(s.name, prefix) {
				mine = append(mine, s)
			}
		}
		b.Run(lang, func(b *testing.B) { benchmarkGrade(b, mine) })
	}
}

// benchmarkGrade grades subs and reports the mean wall and CPU time per
// submission, the slowest and the count over 2 CPU-s.
func benchmarkGrade(b *testing.B, subs []submission) {
	var sum, slowest, cpuSum, slowestCPU time.Duration
	count, over := 0, 0
	var slowestName string
	for b.Loop() {
		for _, s := range subs {
			a, err := grade.Load(s.assignment)
			if err != nil {
				b.Fatal(err)
			}
			start, cpuStart := time.Now(), cpuTime()
			res, err := grade.Grade(context.Background(), a, s.dir, grade.Options{})
			if err != nil {
				b.Fatal(err)
			}
			d, cpu := time.Since(start), cpuTime()-cpuStart
			one := &oneSubmission{TB: b, name: s.name}
			if checkGrading(one, s, res); one.failed {
				b.Errorf("%s: %g/%g, not graded as its expect.yaml says", s.name, res.Score, res.MaxScore)
			}
			sum += d
			cpuSum += cpu
			count++
			slowest = max(slowest, d)
			if cpu > slowestCPU {
				slowestCPU, slowestName = cpu, s.name
			}
			if cpu > 2*time.Second {
				over++
			}
			if testing.Verbose() {
				b.Logf("%-45s %6.2f s (CPU %6.2f s)", s.name, d.Seconds(), cpu.Seconds())
			}
		}
	}
	if count > 0 {
		b.ReportMetric(sum.Seconds()/float64(count), "s/submission")
		b.ReportMetric(cpuSum.Seconds()/float64(count), "cpu-s/submission")
		b.ReportMetric(slowest.Seconds(), "s/slowest")
		b.ReportMetric(float64(over)/float64(b.N), "over-2-cpu-s")
		b.Logf("most CPU: %s, %.2f CPU-s", slowestName, slowestCPU.Seconds())
	}
	b.ReportMetric(float64(len(subs)), "submissions")
}

// oneSubmission is the benchmark seen by checkGrading for one submission:
// its errors name the submission, and whether it failed is its own (the
// benchmark's failure stays for the submissions after it).
type oneSubmission struct {
	testing.TB
	name   string
	failed bool
}

func (o *oneSubmission) Errorf(format string, args ...any) {
	o.TB.Helper()
	o.failed = true
	o.TB.Errorf("%s: %s", o.name, fmt.Sprintf(format, args...))
}

func (o *oneSubmission) Failed() bool { return o.failed }

// cpuTime is the CPU time (user and system) of this process and of the
// children it has waited for, theirs included.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	d := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return d(self.Utime) + d(self.Stime) + d(children.Utime) + d(children.Stime)
}
