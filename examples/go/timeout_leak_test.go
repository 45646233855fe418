package goexamples

import (
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// fetch starts a worker that computes a result, and gives up when timeout
// fires first. result is unbuffered: once the caller has given up, nobody
// will ever receive, and the worker blocks for ever on its send. The
// goroutine leaks; in a server, one per timed-out request.
func fetch(timeout sthread.Chan[struct{}], capacity int) (int, bool) {
	result := sthread.MakeChan[int](capacity)
	sthread.Go(func() {
		result.Send(42) // the computation's result
	})
	var v int
	switch sthread.Select(result.RecvCase(&v, nil), timeout.RecvCase(nil, nil)) {
	case 0:
		return v, true
	default:
		return 0, false
	}
}

// timeoutLeak calls fetch with a timeout that fires. The timer is a
// goroutine that closes the timeout channel (virtual time is not modelled
// yet), so that the search tries it firing before and after the result.
func timeoutLeak(capacity int) func() {
	return func() {
		timeout := sthread.MakeChan[struct{}](0)
		sthread.Go(func() { timeout.Close() })
		fetch(timeout, capacity)
	}
}

func TestTimeoutLeak(t *testing.T) {
	expectBug(t, timeoutLeak(0), search.Leak,
		"THREADS LEAKED", "-> case 1: <-timeout: closed",
		"waits in Chan.Send for result (no receiver)")
}

// TestTimeoutFixed checks the fix, a result channel with room for the
// result, with sthread.Check as a test would.
func TestTimeoutFixed(t *testing.T) {
	sthread.Check(t, timeoutLeak(1))
}
