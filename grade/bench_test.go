package grade_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/grade"
)

// BenchmarkGradeOne grades one wrong answer end to end (build, two
// searches, minimisation, feedback): the time a student waits.
func BenchmarkGradeOne(b *testing.B) {
	a, err := grade.Load("../exercises/c/bounded-buffer/assignment.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := grade.Grade(context.Background(), a, "../exercises/c/bounded-buffer/wrong/one-cond-signal", grade.Options{}); err != nil {
			b.Fatal(err)
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
