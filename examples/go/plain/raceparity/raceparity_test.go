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
