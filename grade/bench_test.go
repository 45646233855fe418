package grade_test

import (
	"context"
	"testing"

	"github.com/stdbg/stdbg/grade"
)

// BenchmarkGradeOne grades one wrong answer end to end (build, three
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
// exercises/ and reports the time per submission.
func BenchmarkGradeExercises(b *testing.B) {
	subs := submissions(b)
	for b.Loop() {
		for _, s := range subs {
			a, err := grade.Load(s.assignment)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := grade.Grade(context.Background(), a, s.dir, grade.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N*len(subs)), "s/submission")
}
