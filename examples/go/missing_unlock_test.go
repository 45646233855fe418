package goexamples

import (
	"errors"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// store is a map guarded by a mutex.
type store struct {
	mu   sthread.Mutex
	data map[string]int
}

// update returns early on invalid input without unlocking: the mutex stays
// locked, by a goroutine that may have ended, and the next update blocks
// for ever.
func (s *store) update(k string, v int) error {
	s.mu.Lock()
	if v < 0 {
		return errors.New("negative value") // s.mu is still locked
	}
	s.data[k] = v
	s.mu.Unlock()
	return nil
}

func missingUnlock() {
	s := &store{data: map[string]int{}}
	var wg sthread.WaitGroup
	wg.Go(func() { s.update("a", -1) })
	wg.Go(func() { s.update("b", 2) })
	wg.Wait()
}

func TestMissingUnlock(t *testing.T) {
	expectBug(t, missingUnlock, search.Deadlock,
		"waits in Mutex.Lock for s.mu (held by thread 2, which has finished)", "waits in WaitGroup.Wait for wg (counter 1)")
}
