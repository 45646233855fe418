// Package dpor holds the benchmark programs of stdbg's partial-order
// reduction, written with package sthread: each function returns the body
// of a check (for sthread.Check or sthread.Explore) at a given size. The
// same programs exist in C under examples/c/dpor.
//
// None has a bug: an exhaustive search ends clean, and the number of
// executions it needs is what the benchmarks compare.
package dpor

import (
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/sync/atomic"
)

// LastZero is lastzero(n): goroutine 1 scans an array of n+1 zeros from
// the end for the first zero; goroutines 1..n each set a[i] = a[i-1]+1.
func LastZero(n int) func() {
	return func() {
		a := make([]int, n+1)
		var wg sthread.WaitGroup
		wg.Go(func() {
			for i := n; i > 0; i-- {
				sthread.Read(&a[i])
				if a[i] == 0 {
					break
				}
			}
		})
		for i := 1; i <= n; i++ {
			wg.Go(func() {
				sthread.Read(&a[i-1])
				v := a[i-1]
				sthread.Write(&a[i])
				a[i] = v + 1
			})
		}
		wg.Wait()
	}
}

// Indexer is indexer(n): n goroutines insert 4 values each into a hash
// table of 128 cells with open addressing, claiming cells with a
// compare-and-swap. Goroutines only meet on the same cells from n = 12.
func Indexer(n int) func() {
	const size, perThread = 128, 4
	return func() {
		var table [size]atomic.Int64
		var wg sthread.WaitGroup
		for tid := 1; tid <= n; tid++ {
			wg.Go(func() {
				for m := range perThread {
					w := int64(m*11 + tid)
					h := (w * 7) % size
					for !table[h].CompareAndSwap(0, w) {
						h = (h + 1) % size
					}
				}
			})
		}
		wg.Wait()
	}
}

// ReadersWriters is readers-writers(n): n readers and one writer share two
// fields under an RWMutex; every reader checks that it sees them equal.
func ReadersWriters(n int) func() {
	return func() {
		var rw sthread.RWMutex
		var lo, hi int
		var wg sthread.WaitGroup
		wg.Go(func() {
			rw.Lock()
			sthread.Write(&lo)
			lo++
			sthread.Write(&hi)
			hi++
			rw.Unlock()
		})
		for range n {
			wg.Go(func() {
				rw.RLock()
				sthread.Read(&lo)
				a := lo
				sthread.Read(&hi)
				b := hi
				rw.RUnlock()
				sthread.Assert(a == b, "a reader saw a half-done update")
			})
		}
		wg.Wait()
	}
}

// Counter is counter(n): n goroutines each add one to a counter under a
// mutex; the total is checked at the end. n! traces.
func Counter(n int) func() {
	return func() {
		var mu sthread.Mutex
		count := 0
		var wg sthread.WaitGroup
		for range n {
			wg.Go(func() {
				mu.Lock()
				sthread.Read(&count)
				v := count
				sthread.Write(&count)
				count = v + 1
				mu.Unlock()
			})
		}
		wg.Wait()
		sthread.Read(&count)
		sthread.Assert(count == n, "every increment is counted")
	}
}

// ProdCons is a bounded buffer of 2 slots under a mutex and two condition
// variables, with p producers and p consumers moving 2 items each.
func ProdCons(p int) func() {
	return func() {
		var mu sthread.Mutex
		notFull, notEmpty := sthread.NewCond(&mu), sthread.NewCond(&mu)
		var buf [2]int
		count, in, out, consumed := 0, 0, 0, 0
		var wg sthread.WaitGroup
		for id := 1; id <= p; id++ {
			wg.Go(func() {
				for i := range 2 {
					mu.Lock()
					for count == len(buf) {
						notFull.Wait()
					}
					buf[in] = id*100 + i
					in = (in + 1) % len(buf)
					count++
					notEmpty.Broadcast()
					mu.Unlock()
				}
			})
			wg.Go(func() {
				for range 2 {
					mu.Lock()
					for count == 0 {
						notEmpty.Wait()
					}
					_ = buf[out]
					out = (out + 1) % len(buf)
					count--
					consumed++
					notFull.Broadcast()
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		sthread.Assert(consumed == 2*p, "every item is consumed")
	}
}
