package grade_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/grade"
)

// BenchmarkGradeOne grades one wrong answer end to end (build, searches,
// minimisation, feedback): the time a student waits, for a C and a Go
// submission, with the submission's processes confined as this machine
// allows and without confinement (what the sandbox costs: prlimit,
// unshare and setpriv run before each process of the program).
func BenchmarkGradeOne(b *testing.B) {
	for _, s := range []struct{ name, assignment, dir string }{
		{"C", "../exercises/c/bounded-buffer/assignment.yaml", "../exercises/c/bounded-buffer/wrong/one-cond-signal"},
		{"Go", "../exercises/go/worker-pool/assignment.yaml", "../exercises/go/worker-pool/wrong/each-worker-closes"},
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
				for b.Loop() {
					res, err := grade.Grade(context.Background(), a, s.dir, grade.Options{Confinement: c.conf})
					if err != nil {
						b.Fatal(err)
					}
					if res.Score == res.MaxScore {
						b.Fatalf("%s: full marks for a wrong answer", s.dir)
					}
				}
			})
		}
	}
}

// BenchmarkGradeExercises grades every reference and wrong answer of
// exercises/ and reports the mean time per submission, of C and Go ones
// apart, and the slowest (go test -run '^$' -bench Exercises ./grade;
// -v logs each submission's time).
func BenchmarkGradeExercises(b *testing.B) {
	subs := submissions(b)
	var sum, slowest [2]time.Duration // [C, Go]
	var count [2]int
	for b.Loop() {
		for _, s := range subs {
			a, err := grade.Load(s.assignment)
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			res, err := grade.Grade(context.Background(), a, s.dir, grade.Options{})
			if err != nil {
				b.Fatal(err)
			}
			d := time.Since(start)
			if (s.want == nil) != (res.Score == res.MaxScore) {
				b.Errorf("%s: %g/%g", s.name, res.Score, res.MaxScore)
			}
			lang := 0
			if strings.HasPrefix(s.name, "go/") {
				lang = 1
			}
			sum[lang] += d
			count[lang]++
			slowest[lang] = max(slowest[lang], d)
			if testing.Verbose() {
				b.Logf("%-45s %6.2f s", s.name, d.Seconds())
			}
		}
	}
	total := sum[0] + sum[1]
	b.ReportMetric(total.Seconds()/float64(count[0]+count[1]), "s/submission")
	for lang, name := range []string{"C", "Go"} {
		if count[lang] > 0 {
			b.ReportMetric(sum[lang].Seconds()/float64(count[lang]), "s/"+name+"-submission")
			b.ReportMetric(slowest[lang].Seconds(), "s/slowest-"+name)
		}
	}
	b.ReportMetric(float64(len(subs)), "submissions")
}
