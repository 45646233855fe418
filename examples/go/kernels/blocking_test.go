package kernels

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// A watch that gives up after a timeout: the producer's unbuffered send has
// no receiver any more and its goroutine leaks (a watch loop of a
// key-value store's client).
func TestWatchLeakAfterTimeout(t *testing.T) {
	zoo(t)
	events := make(chan string)
	go func() {
		time.Sleep(20 * time.Millisecond)
		events <- "put"
	}()
	select {
	case <-events:
	case <-time.After(10 * time.Millisecond):
	}
}

// A cache whose refresh callback takes the lock the caller already holds
// (a controller calling back into its own informer).
type cache struct {
	mu      sync.Mutex
	entries map[string]int
	onMiss  func(string)
}

func (c *cache) get(k string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.entries[k]
	if !ok && c.onMiss != nil {
		c.onMiss(k)
	}
	return v
}

func (c *cache) set(k string, v int) {
	c.mu.Lock()
	c.entries[k] = v
	c.mu.Unlock()
}

func TestCallbackUnderLock(t *testing.T) {
	zoo(t)
	c := &cache{entries: map[string]int{}}
	c.onMiss = func(k string) { c.set(k, 0) }
	done := make(chan bool)
	go func() {
		c.set("a", 1)
		done <- true
	}()
	c.get("b")
	<-done
}

// Two connections each wait for the other's greeting before sending their
// own (a handshake written twice, from both ends).
func TestHandshakeBothWait(t *testing.T) {
	zoo(t)
	toA, toB := make(chan string), make(chan string)
	done := make(chan bool)
	go func() {
		<-toB
		toA <- "hello from b"
		done <- true
	}()
	<-toA
	toB <- "hello from a"
	<-done
}

// An error group that returns the first error: the other workers block
// forever on the unbuffered error channel nobody reads any more.
func TestFirstErrorLeaksOthers(t *testing.T) {
	zoo(t)
	errc := make(chan error)
	for i := 0; i < 2; i++ {
		go func() {
			errc <- errors.New("shard unavailable")
		}()
	}
	if err := <-errc; err == nil {
		t.Fatal("no error")
	}
}

// A worker's select listens to jobs but not to the stop channel: after
// stop, the worker waits for jobs forever.
func TestSelectMissingStop(t *testing.T) {
	zoo(t)
	jobs, flush, stop := make(chan int), make(chan bool), make(chan struct{})
	done := make(chan bool)
	go func() {
		pending := 0
		for {
			select {
			case <-jobs:
				pending++
			case <-flush:
				pending = 0
			}
		}
	}()
	go func() {
		jobs <- 1
		close(stop)
		done <- true
	}()
	<-done
	<-stop
	// The worker is still blocked in its select: leaked.
}

// register adds a worker to wg (called, wrongly, by the worker itself).
func register(wg *sync.WaitGroup) { wg.Add(1) }

// WaitGroup.Add inside the goroutine: Wait can return before the worker
// registered, and the result is read before it is written.
func TestWaitGroupAddInGoroutine(t *testing.T) {
	zoo(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	results := 0
	go func() {
		register(&wg)
		defer wg.Done()
		mu.Lock()
		results++
		mu.Unlock()
	}()
	wg.Wait()
	mu.Lock()
	got := results
	mu.Unlock()
	if got != 1 {
		t.Fatalf("%d results after Wait, want 1", got)
	}
}

// A lost wake-up: the waiter checks the flag, the notifier sets it and
// signals before the waiter waits, and the wait has no loop on the flag
// (a shutdown notification).
func TestCondLostSignal(t *testing.T) {
	zoo(t)
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	ready := false
	go func() {
		mu.Lock()
		ready = true
		mu.Unlock()
		cond.Signal()
	}()
	mu.Lock()
	if !ready {
		mu.Unlock()
		mu.Lock()
		cond.Wait()
	}
	mu.Unlock()
}

// A read lock taken twice by one goroutine while a writer waits between:
// the second RLock waits for the writer, which waits for the first.
func TestRecursiveReadLock(t *testing.T) {
	zoo(t)
	var rw sync.RWMutex
	config := map[string]string{"mode": "a"}
	done := make(chan bool)
	rw.RLock()
	go func() {
		rw.Lock()
		config["mode"] = "b"
		rw.Unlock()
		done <- true
	}()
	rw.RLock() // a helper that reads the config again
	_ = config["mode"]
	rw.RUnlock()
	rw.RUnlock()
	<-done
}

// A request cancelled while its handler still sends the response: the
// handler's goroutine leaks on the unbuffered reply channel.
func TestCancelledRequestLeaksHandler(t *testing.T) {
	zoo(t)
	ctx, cancel := context.WithCancel(context.Background())
	reply := make(chan int)
	go func() {
		reply <- 42
	}()
	cancel()
	select {
	case <-reply:
	case <-ctx.Done():
	}
}

// Locks taken in opposite orders by a transfer and an audit (AB-BA).
func TestTransferAudit(t *testing.T) {
	zoo(t)
	var accounts, ledger sync.Mutex
	balance, entries := 100, 0
	done := make(chan bool)
	go func() { // the audit
		ledger.Lock()
		accounts.Lock()
		_ = balance + entries
		accounts.Unlock()
		ledger.Unlock()
		done <- true
	}()
	accounts.Lock() // the transfer
	balance -= 10
	ledger.Lock()
	entries++
	ledger.Unlock()
	accounts.Unlock()
	<-done
}
