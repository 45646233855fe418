package sthread_test

import (
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/sync/atomic"
)

// Outside Check every primitive behaves as the real one.

func TestPassThroughSync(t *testing.T) {
	var mu sthread.Mutex
	var rw sthread.RWMutex
	var wg sthread.WaitGroup
	var once sthread.Once
	n, ran, shared := 0, 0, 0 // guarded by mu, once, rw
	for range 8 {
		wg.Go(func() {
			for range 100 {
				mu.Lock()
				n++
				mu.Unlock()
				rw.RLock()
				_ = shared
				rw.RUnlock()
				rw.Lock()
				shared++
				rw.Unlock()
				once.Do(func() { ran++ })
			}
		})
	}
	wg.Wait()
	if n != 800 || ran != 1 {
		t.Errorf("n = %d, once ran %d times", n, ran)
	}
	if !mu.TryLock() || mu.TryLock() {
		t.Error("TryLock")
	}
	mu.Unlock()
	if !rw.TryRLock() || rw.TryLock() {
		t.Error("TryRLock")
	}
	rw.RUnlock()
	if !rw.TryLock() {
		t.Error("TryLock of rw")
	}
	rw.Unlock()
	l := rw.RLocker()
	l.Lock()
	_ = shared
	l.Unlock()

	c := sthread.NewCond(&mu)
	ready := false
	done := make(chan struct{})
	sthread.Go(func() {
		mu.Lock()
		for !ready {
			c.Wait()
		}
		mu.Unlock()
		close(done)
	})
	sthread.Sleep(time.Millisecond)
	sthread.Yield()
	mu.Lock()
	ready = true
	c.Broadcast()
	c.Signal()
	mu.Unlock()
	<-done
}

func TestPassThroughChannels(t *testing.T) {
	ch := sthread.MakeChan[int](3)
	if ch.Cap() != 3 {
		t.Errorf("Cap = %d", ch.Cap())
	}
	ch.Send(1)
	ch.Send(2)
	if ch.Len() != 2 || ch.Recv() != 1 {
		t.Error("Len or Recv")
	}
	ch.Close()
	var got []int
	for v := range ch.All() {
		got = append(got, v)
	}
	if v, ok := ch.Recv2(); len(got) != 1 || got[0] != 2 || ok || v != 0 {
		t.Errorf("All = %v; Recv2 = %d, %v", got, v, ok)
	}

	a := sthread.MakeChan[string](0)
	b := sthread.MakeChan[error](1)
	var nilCh sthread.Chan[int]
	if nilCh.Cap() != 0 || nilCh.Len() != 0 {
		t.Error("nil channel")
	}
	var s string
	var ok bool
	if i := sthread.Select(a.RecvCase(&s, &ok), nilCh.SendCase(1), sthread.Default()); i != 2 {
		t.Errorf("Select chose %d, want the default", i)
	}
	if i := sthread.Select(b.SendCase(nil), a.SendCase("x")); i != 0 {
		t.Errorf("Select chose %d, want the send of a nil error", i)
	}
	var e error
	if i := sthread.Select(b.RecvCase(&e, &ok)); i != 0 || e != nil || !ok {
		t.Errorf("Select = %d, %v, %v", i, e, ok)
	}
	b.Send(errors.New("boom"))
	sthread.Go(func() { a.Send("hello") })
	var seen []string
	for range 2 {
		switch sthread.Select(a.RecvCase(&s, nil), b.RecvCase(&e, nil)) {
		case 0:
			seen = append(seen, s)
		case 1:
			seen = append(seen, e.Error())
		}
	}
	sort.Strings(seen)
	if len(seen) != 2 || seen[0] != "boom" || seen[1] != "hello" {
		t.Errorf("received %q", seen)
	}
	a.Close()
	if i := sthread.Select(a.RecvCase(&s, &ok)); i != 0 || ok {
		t.Errorf("receive from closed: %d %v", i, ok)
	}
}

func TestPassThroughMisc(t *testing.T) {
	var n atomic.Int64
	var m atomic.Int32
	var bl atomic.Bool
	var p atomic.Pointer[int]
	x := 5
	n.Store(n.Add(2) + n.Swap(1) + n.Load())
	if !n.CompareAndSwap(5, 6) || n.Load() != 6 {
		t.Errorf("int64 = %d", n.Load())
	}
	m.Store(m.Add(2) + m.Swap(1) + m.Load())
	if !m.CompareAndSwap(5, 6) || m.Load() != 6 {
		t.Errorf("int32 = %d", m.Load())
	}
	bl.Store(!bl.Swap(true))
	if !bl.CompareAndSwap(true, false) || bl.Load() {
		t.Error("bool")
	}
	p.Store(p.Swap(&x))
	if !p.CompareAndSwap(nil, &x) || *p.Load() != 5 {
		t.Error("pointer")
	}
	sthread.Read(&x)
	sthread.Write(&x)
	sthread.Read(42) // not a pointer: ignored outside Check
	if sthread.Choose(3) != 0 {
		t.Error("Choose outside Check")
	}
	mustPanic(t, "sthread: assertion failed: boom", func() { sthread.Assert(false, "boom") })
	mustPanic(t, "sthread.Choose(0): n must be at least 1", func() { sthread.Choose(0) })
	sthread.Assert(true, "fine")
}

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		if p := recover(); p != want {
			t.Errorf("panic %v, want %q", p, want)
		}
	}()
	f()
}

func TestReadNotAPointer(t *testing.T) {
	res, err := sthread.Explore(func() { sthread.Read(42) })
	if err != nil || len(res.Bugs) != 1 || res.Bugs[0].Message != "panic: sthread.Read: want a non-nil pointer, got int" {
		t.Errorf("%v %v", res.Bugs, err)
	}
}

// TestCondLiteral uses a Cond made as a literal, as plain Go's
// sync.Cond{L: &mu} becomes once instrumented, outside Check.
func TestCondLiteral(t *testing.T) {
	var mu sthread.Mutex
	c := &sthread.Cond{L: &mu}
	ready := false
	done := make(chan bool)
	go func() {
		mu.Lock()
		for !ready {
			c.Wait()
		}
		mu.Unlock()
		done <- true
	}()
	mu.Lock()
	ready = true
	c.Broadcast()
	mu.Unlock()
	<-done
}
