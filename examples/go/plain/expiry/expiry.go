// Package expiry is a correct program whose test takes the clock to move
// on between two readings, as real clocks do: a queue of idle workers
// kept in the order they went idle, searched by time. Under stdbg the
// clock is virtual; each reading moves it on, so the test passes there as
// it does under go test.
package expiry

import (
	"sort"
	"sync"
	"time"
)

// Idle is the queue of idle workers: the time each went idle, oldest first.
type Idle struct {
	mu sync.Mutex
	at []time.Time
}

// Put records that a worker goes idle now.
func (q *Idle) Put() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.at = append(q.at, time.Now())
}

// Before returns how many workers went idle before t.
func (q *Idle) Before(t time.Time) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return sort.Search(len(q.at), func(i int) bool { return !q.at[i].Before(t) })
}

// Ordered reports whether the times are strictly increasing.
func (q *Idle) Ordered() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := 1; i < len(q.at); i++ {
		if !q.at[i].After(q.at[i-1]) {
			return false
		}
	}
	return true
}
