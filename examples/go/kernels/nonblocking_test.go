package kernels

import (
	"sync"
	"testing"
)

// Two shutdown paths close the same channel (a server stopped by a signal
// and by its parent at once).
func TestDoubleClose(t *testing.T) {
	zoo(t)
	quit := make(chan struct{})
	var once bool
	var wg sync.WaitGroup
	stop := func() {
		defer wg.Done()
		if !once {
			once = true
			close(quit)
		}
	}
	var mu sync.Mutex
	signals := 0
	handle := func() {
		mu.Lock()
		signals++
		mu.Unlock()
		stop()
	}
	wg.Add(2)
	go handle() // the signal handler
	go handle() // the parent's shutdown
	wg.Wait()
}

// A producer sends a last result while the consumer closes the channel on
// its way out (send on closed channel).
func TestSendAfterClose(t *testing.T) {
	zoo(t)
	results := make(chan int, 1)
	done := make(chan bool)
	go func() {
		results <- 1
		done <- true
	}()
	close(results)
	<-done
}

// A registry whose map is written by two goroutines without a lock
// (concurrent map writes).
func TestUnlockedMapWrites(t *testing.T) {
	zoo(t)
	seen := map[string]bool{}
	done := make(chan bool)
	go func() {
		seen["a"] = true
		done <- true
	}()
	seen["b"] = true
	<-done
}

// A counter of in-flight requests read without the lock that guards its
// updates (a metrics gauge).
func TestGaugeReadWithoutLock(t *testing.T) {
	zoo(t)
	var mu sync.Mutex
	inflight := 0
	done := make(chan bool)
	go func() {
		mu.Lock()
		inflight++
		mu.Unlock()
		done <- true
	}()
	_ = inflight
	<-done
}

// A status check-then-act: two goroutines both see "idle" and both start
// the job, under separate critical sections.
func TestCheckThenStart(t *testing.T) {
	zoo(t)
	var mu sync.Mutex
	state, starts := "idle", 0
	var wg sync.WaitGroup
	start := func() {
		defer wg.Done()
		mu.Lock()
		idle := state == "idle"
		mu.Unlock()
		if idle {
			mu.Lock()
			state = "running"
			starts++
			mu.Unlock()
		}
	}
	wg.Add(2)
	go start()
	go start()
	wg.Wait()
	if starts != 1 {
		t.Fatalf("the job started %d times", starts)
	}
}

// A lazily made map checked without the lock: two goroutines both find it
// nil, and the second replaces the map the first already wrote into.
type registry struct {
	mu    sync.Mutex
	names map[string]int
}

func (r *registry) add(name string) {
	if r.names == nil { // checked without the lock
		r.mu.Lock()
		r.names = map[string]int{}
		r.mu.Unlock()
	}
	r.mu.Lock()
	r.names[name]++
	r.mu.Unlock()
}

func TestLazyMapInit(t *testing.T) {
	zoo(t)
	var r registry
	done := make(chan bool)
	go func() {
		r.add("a")
		done <- true
	}()
	r.add("b")
	<-done
	r.mu.Lock()
	n := len(r.names)
	r.mu.Unlock()
	if n != 2 {
		t.Fatalf("%d names registered, want 2", n)
	}
}
