package raceparity

import "testing"

// TestSelectOnClearedField: Wait's select reads w.ch while Stop, in the
// test's goroutine, writes it after closing the channel. Nothing orders the
// read before the write: go test -race reports it on a plain run.
func TestSelectOnClearedField(t *testing.T) {
	w := NewWatcher()
	done := make(chan bool)
	go func() {
		w.Wait()
		done <- true
	}()
	w.Stop()
	<-done
}

// TestRangeCallbackCounter: a goroutine's Range callback increments a
// counter once it sees the key the test stored; the test reads the counter
// without waiting for it. When the Store comes before the Range, the
// increment and the read race.
func TestRangeCallbackCounter(t *testing.T) {
	var r Registry
	done := make(chan bool)
	go func() {
		r.Scan()
		done <- true
	}()
	r.Add("a")
	_ = r.Seen()
	<-done
}

// TestLazyInit: a goroutine reads the map field without the lock while the
// test, calling the same methods, writes it under the lock. The race is in
// the very first schedule: stdbg once missed it in the first execution of
// a process, where an internal cache of sthread, shared by the two
// goroutines' identical calls, ordered them for the detector.
func TestLazyInit(t *testing.T) {
	var n Names
	done := make(chan bool)
	go func() {
		n.Add("a")
		done <- true
	}()
	n.Add("b")
	<-done
}
