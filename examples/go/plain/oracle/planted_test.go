package oracle

import (
	"os"
	"runtime"
	"sync"
	"testing"
)

// planted skips a test whose bug is the point unless STDBG_ZOO is set:
// under a plain go test it fails, by chance of the scheduling.
func planted(t *testing.T) {
	t.Helper()
	if os.Getenv("STDBG_ZOO") == "" {
		t.Skip("a bug planted for go test -race and stdbg test (set STDBG_ZOO=1)")
	}
}

// TestPlantedCounterRace: two goroutines increment a counter without a
// lock: a data race.
func TestPlantedCounterRace(t *testing.T) {
	planted(t)
	n := 0
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n++
		}()
	}
	wg.Wait()
	_ = n
}

// TestPlantedResultBeforeReceive: the test reads the worker's result
// before it receives the worker's signal: a data race.
func TestPlantedResultBeforeReceive(t *testing.T) {
	planted(t)
	result := 0
	done := make(chan bool)
	go func() {
		result = 42
		done <- true
	}()
	r := result
	<-done
	_ = r
}

// TestPlantedLostUpdate: each goroutine reads the counter under the lock,
// lets go of it, and writes its increment under the lock again: no data
// race, but an increment can be lost, and the test's check fails.
func TestPlantedLostUpdate(t *testing.T) {
	planted(t)
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
			runtime.Gosched()
			mu.Lock()
			n = v + 1
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n != 2 {
		t.Errorf("n = %d, want 2", n)
	}
}

// TestPlantedCheckThenClose: two goroutines close a channel unless it
// looks closed already, checking with a select under no lock: both can
// see it open, and the second close panics.
func TestPlantedCheckThenClose(t *testing.T) {
	planted(t)
	c := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-c:
			default:
				runtime.Gosched()
				close(c)
			}
		}()
	}
	wg.Wait()
}
