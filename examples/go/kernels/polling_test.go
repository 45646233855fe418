package kernels

import (
	"sync"
	"testing"
)

// A worker polls a stop channel with select and default, counting its jobs
// under a mutex; after its third job it waits for an acknowledgement. The
// test looks at the count three times and, in a window it did not expect
// (exactly two jobs done), returns at once, without stopping the worker or
// acknowledging: the worker polls on, then waits for ever (a leak). A
// kernel of issue 34's kind: a polling loop that never blocks, and a bug a
// few switches deep.
func TestPollGivesUpEarly(t *testing.T) {
	zoo(t)
	var mu sync.Mutex
	stop := make(chan struct{})
	ack := make(chan struct{})
	jobs := 0
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			mu.Lock()
			jobs++
			n := jobs
			mu.Unlock()
			if n == 3 {
				<-ack
				return
			}
		}
	}()
	for range 3 {
		mu.Lock()
		j := jobs
		mu.Unlock()
		if j == 2 {
			return // gave up: neither stop nor ack is closed
		}
	}
	close(stop)
	close(ack)
}
