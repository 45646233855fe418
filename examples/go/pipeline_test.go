package goexamples

import (
	"testing"

	"github.com/stdbg/stdbg/sthread"
)

// pipeline is correct: a generator, a squarer and the consumer connected by
// channels, each stage closing its output when its input is exhausted. It
// passes one value, so that every schedule is explored in about a second
// (the search has no partial-order reduction yet: with two values there are
// hundreds of thousands of schedules).
func pipeline() {
	nums := sthread.MakeChan[int](0)
	squares := sthread.MakeChan[int](1)
	sthread.Go(func() {
		defer nums.Close()
		for i := 3; i <= 3; i++ {
			nums.Send(i)
		}
	})
	sthread.Go(func() {
		defer squares.Close()
		for n := range nums.All() {
			squares.Send(n * n)
		}
	})
	sum := 0
	for sq := range squares.All() {
		sum += sq
	}
	sthread.Assert(sum == 9, "wrong sum")
}

func TestPipeline(t *testing.T) {
	expectClean(t, pipeline)
	sthread.Check(t, pipeline) // what a test of the pipeline would write
}
