package oracle

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBufferedWrapAround: for capacities 1 to 3, a producer sends more
// values than the buffer holds, so its ring wraps around; the consumer
// receives them in the order sent.
func TestBufferedWrapAround(t *testing.T) {
	for capacity := 1; capacity <= 3; capacity++ {
		c := make(chan int, capacity)
		n := 2*capacity + 1
		go func() {
			for i := range n {
				c <- i
			}
			close(c)
		}()
		next := 0
		for v := range c {
			if v != next {
				t.Fatalf("capacity %d: received %d, want %d", capacity, v, next)
			}
			next++
		}
		if next != n {
			t.Fatalf("capacity %d: %d values, want %d", capacity, next, n)
		}
	}
}

// TestMapRangeInWorkers: each worker builds and ranges over a map of its
// own and sends its sum.
func TestMapRangeInWorkers(t *testing.T) {
	sums := make(chan int)
	for w := 1; w <= 2; w++ {
		go func() {
			m := map[string]int{}
			for i := 1; i <= 3; i++ {
				m[fmt.Sprint(i)] = i * w
			}
			s := 0
			for _, v := range m {
				s += v
			}
			sums <- s
		}()
	}
	if got := <-sums + <-sums; got != 6+12 {
		t.Errorf("sum %d, want 18", got)
	}
}

// TestRandAndFmtInWorkers: workers draw from math/rand's shared source
// (safe for concurrent use) and format their draws; the test sorts and
// checks them.
func TestRandAndFmtInWorkers(t *testing.T) {
	var wg sync.WaitGroup
	out := make([]string, 3)
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = fmt.Sprintf("%d:%d", i, rand.Intn(10))
		}()
	}
	wg.Wait()
	sort.Strings(out)
	for i, s := range out {
		if !strings.HasPrefix(s, fmt.Sprintf("%d:", i)) {
			t.Errorf("out[%d] = %q", i, s)
		}
	}
}

// TestTimeoutAsGuard: a minute-long timeout guards a result that a
// goroutine computes at once; it never fires in a run that is not stuck.
func TestTimeoutAsGuard(t *testing.T) {
	result := make(chan int, 1)
	go func() { result <- 42 }()
	select {
	case v := <-result:
		if v != 42 {
			t.Errorf("result %d", v)
		}
	case <-time.After(time.Minute):
		t.Fatal("no result within a minute")
	}
}

// TestSelectDefaultDrops: senders offer values to a one-slot buffer with
// a select default, dropping what does not fit; the test counts what it
// received and what was dropped.
func TestSelectDefaultDrops(t *testing.T) {
	c := make(chan int, 1)
	var dropped atomic.Int32
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case c <- i:
			default:
				dropped.Add(1)
			}
		}()
	}
	wg.Wait()
	kept := len(c)
	if kept != 1 || int(dropped.Load()) != 2 {
		t.Errorf("kept %d, dropped %d: want 1 and 2", kept, dropped.Load())
	}
}

// TestContextCancelStopsWorker: the worker serves requests until its
// context is cancelled, then says it stopped.
func TestContextCancelStopsWorker(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	requests := make(chan int)
	stopped := make(chan error)
	go func() {
		for {
			select {
			case <-ctx.Done():
				stopped <- ctx.Err()
				return
			case r := <-requests:
				_ = r
			}
		}
	}()
	requests <- 1
	cancel()
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("worker stopped with %v", err)
	}
}

// TestRecoveredPanicInWorker: a worker recovers its panic and reports it
// as an error.
func TestRecoveredPanicInWorker(t *testing.T) {
	errc := make(chan error)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				errc <- fmt.Errorf("recovered: %v", r)
			}
		}()
		var m map[string]int
		//lint:ignore SA5000 the panic is what the test recovers
		m["x"] = 1 // panics: assignment to entry in nil map
	}()
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "nil map") {
		t.Errorf("err = %v", err)
	}
}

// TestSyncMapLoadOrStore: goroutines race to store a key in a sync.Map;
// exactly one stores it and all see the same value.
func TestSyncMapLoadOrStore(t *testing.T) {
	var m sync.Map
	var stored atomic.Int32
	var wg sync.WaitGroup
	seen := make([]any, 3)
	for i := range seen {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, loaded := m.LoadOrStore("k", i)
			if !loaded {
				stored.Add(1)
			}
			seen[i] = v
		}()
	}
	wg.Wait()
	if stored.Load() != 1 || seen[0] != seen[1] || seen[1] != seen[2] {
		t.Errorf("stored %d times, saw %v", stored.Load(), seen)
	}
}

// TestSyncPoolBuffers: goroutines take buffers from a sync.Pool, fill and
// return them; a buffer is used by one goroutine at a time.
func TestSyncPoolBuffers(t *testing.T) {
	pool := sync.Pool{New: func() any { return new(strings.Builder) }}
	results := make(chan string, 2)
	for i := range 2 {
		go func() {
			b := pool.Get().(*strings.Builder)
			b.Reset()
			fmt.Fprintf(b, "worker %d", i)
			results <- b.String()
			pool.Put(b)
		}()
	}
	got := []string{<-results, <-results}
	sort.Strings(got)
	if got[0] != "worker 0" || got[1] != "worker 1" {
		t.Errorf("results %q", got)
	}
}

// TestOnceInitialises: goroutines read a value a Once initialises.
func TestOnceInitialises(t *testing.T) {
	var once sync.Once
	var config map[string]string
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			once.Do(func() { config = map[string]string{"mode": "fast"} })
			if config["mode"] != "fast" {
				t.Error("config not initialised")
			}
		}()
	}
	wg.Wait()
}

// TestLogWhileWorkersRun: workers log through t.Log, and report a failure
// with t.Error that never happens, while the test waits for them.
func TestLogWhileWorkersRun(t *testing.T) {
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	for i := 1; i <= 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Logf("worker %d starts", i)
			mu.Lock()
			total += i
			mu.Unlock()
			if i > 2 {
				t.Errorf("worker %d out of range", i)
			}
		}()
	}
	wg.Wait()
	if total != 3 {
		t.Errorf("total %d, want 3", total)
	}
}

// TestAtomicPublish: a writer fills a value, then publishes its pointer
// atomically; the reader loads the pointer after the writer is known done.
func TestAtomicPublish(t *testing.T) {
	type state struct{ n int }
	var p atomic.Pointer[state]
	var hits atomic.Int64
	done := make(chan struct{})
	go func() {
		s := &state{n: 7}
		p.Store(s)
		hits.Add(1)
		close(done)
	}()
	hits.Add(1)
	<-done
	if s := p.Load(); s == nil || s.n != 7 || hits.Load() != 2 {
		t.Errorf("state %+v, hits %d", s, hits.Load())
	}
}

// TestWaitGroupGo: goroutines started by WaitGroup.Go write slots of their
// own; the test reads them after Wait.
func TestWaitGroupGo(t *testing.T) {
	var wg sync.WaitGroup
	squares := make([]int, 3)
	for i := range squares {
		wg.Go(func() { squares[i] = i * i })
	}
	wg.Wait()
	if squares[2] != 4 {
		t.Errorf("squares %v", squares)
	}
}
