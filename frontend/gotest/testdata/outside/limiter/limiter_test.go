package limiter

import (
	"sync"
	"testing"
	"time"

	"example.com/mockclock"
	"github.com/stretchr/testify/assert"
)

// TestTakeOnMock is correct: a goroutine takes two turns, the second
// asleep on the fake clock (code stdbg does not instrument) until the test
// moves the clock on. go test -race passes it every time; under stdbg the
// sleeper waits, inside one of its steps, for a goroutine that the
// scheduler holds: stdbg cannot judge it.
func TestTakeOnMock(t *testing.T) {
	l := &Limiter{Clock: &mockclock.Mock{}, Every: time.Second}
	started, done := make(chan struct{}), make(chan struct{})
	go func() {
		close(started)
		l.Take()
		l.Take()
		close(done)
	}()
	<-started
	for {
		select {
		case <-done:
			return
		default:
		}
		l.Clock.Add(time.Second)
	}
}

// TestLongStep is correct: a goroutine spends 6 s of real time in code
// stdbg does not instrument, longer than the transition timeout (5 s),
// between two of its steps. Under a shorter budget, the execution is cut
// when the budget ends, without a verdict.
func TestLongStep(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		mu.Lock()
		mockclock.Pause(6 * time.Second)
		mu.Unlock()
	}()
	mu.Lock()
	mu.Unlock()
	wg.Wait()
}

// TestLostTurn has a bug: two goroutines count their turns with a read
// and a write under separate locks, and one count can be lost. testify's
// assertion fails.
func TestLostTurn(t *testing.T) {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			v := n
			mu.Unlock()
			mu.Lock()
			n = v + 1
			mu.Unlock()
		}()
	}
	wg.Wait()
	assert.Equal(t, 2, n, "both turns counted")
}
