package grade_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stdbg/stdbg/frontend/grade"
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
// exercises/ and reports the mean time per submission, of C and Go ones
// apart, and the slowest (go test -run '^$' -bench Exercises ./frontend/grade;
// -v logs each submission's time). On a busy machine the wall time says
// how busy it was as much as what grading costs: the CPU time the grading
// took (the grader's and its children's: compilers, targets, sandbox)
// is reported too.
func BenchmarkGradeExercises(b *testing.B) {
	subs := submissions(b)
	var sum, slowest, cpuSum [2]time.Duration // [C, Go]
	var count [2]int
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
			if (s.want == nil) != (res.Score == res.MaxScore) {
				b.Errorf("%s: %g/%g", s.name, res.Score, res.MaxScore)
			}
			lang := 0
			if strings.HasPrefix(s.name, "go/") {
				lang = 1
			}
			sum[lang] += d
			cpuSum[lang] += cpu
			count[lang]++
			slowest[lang] = max(slowest[lang], d)
			if testing.Verbose() {
				b.Logf("%-45s %6.2f s (CPU %6.2f s)", s.name, d.Seconds(), cpu.Seconds())
			}
		}
	}
	total := sum[0] + sum[1]
	b.ReportMetric(total.Seconds()/float64(count[0]+count[1]), "s/submission")
	for lang, name := range []string{"C", "Go"} {
		if count[lang] > 0 {
			b.ReportMetric(sum[lang].Seconds()/float64(count[lang]), "s/"+name+"-submission")
			b.ReportMetric(cpuSum[lang].Seconds()/float64(count[lang]), "cpu-s/"+name+"-submission")
			b.ReportMetric(slowest[lang].Seconds(), "s/slowest-"+name)
		}
	}
	b.ReportMetric(float64(len(subs)), "submissions")
}

// cpuTime is the CPU time (user and system) of this process and of the
// children it has waited for, theirs included.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	d := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return d(self.Utime) + d(self.Stime) + d(children.Utime) + d(children.Stime)
}
