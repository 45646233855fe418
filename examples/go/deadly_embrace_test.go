package goexamples

import (
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// deadlyEmbrace: two goroutines take the same two mutexes in opposite
// orders. If each takes its first mutex before the other takes its second,
// both wait for ever.
func deadlyEmbrace() {
	var first, second sthread.Mutex
	a, b := 100, 100 // guarded by first and second
	sthread.Go(func() {
		second.Lock()
		first.Lock() // waits for the main goroutine
		a, b = a+10, b-10
		first.Unlock()
		second.Unlock()
	})
	first.Lock()
	second.Lock() // waits for the other goroutine
	a, b = a-20, b+20
	second.Unlock()
	first.Unlock()
}

func TestDeadlyEmbrace(t *testing.T) {
	bug := expectBug(t, deadlyEmbrace, search.Deadlock,
		"thread 1 waits in Mutex.Lock for second (held by thread 2)",
		"thread 2 waits in Mutex.Lock for first (held by thread 1)")
	if bug.Schedule != "1;1;2;2" {
		t.Errorf("schedule %s, want 1;1;2;2", bug.Schedule)
	}
}
