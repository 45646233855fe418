package sync_test

import (
	"runtime"
	stdsync "sync"
	"testing"
	"unsafe"

	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/sync"
)

// bucket pads itself to a cache line with the size of a struct of sync's
// types, as real code does (a mirror larger than sync's type made the
// array's length negative, and the program did not build).
type bucket struct {
	mu   sync.Mutex
	rw   sync.RWMutex
	wg   sync.WaitGroup
	once sync.Once
	n    int
}

type stdBucket struct {
	mu   stdsync.Mutex
	rw   stdsync.RWMutex
	wg   stdsync.WaitGroup
	once stdsync.Once
	n    int
}

const cacheLine = 128

type paddedBucket struct {
	bucket
	_ [cacheLine - unsafe.Sizeof(bucket{})]byte
}

// TestShapes checks that structs made of the mirrors are laid out as
// those made of sync's types, and that the mirrors work from their zero
// values under a check and outside one, in such a struct.
func TestShapes(t *testing.T) {
	if a, b := unsafe.Sizeof(bucket{}), unsafe.Sizeof(stdBucket{}); a != b {
		t.Errorf("a struct of the mirrors has size %d, one of sync's %d", a, b)
	}
	if a, b := unsafe.Offsetof(bucket{}.n), unsafe.Offsetof(stdBucket{}.n); a != b {
		t.Errorf("a field after the mirrors is at %d, after sync's at %d", a, b)
	}
	var sb stdBucket // in use as a bucket of sync's types is
	sb.once.Do(func() { sb.n = 10 })
	sb.wg.Add(1)
	sb.rw.RLock()
	sb.mu.Lock()
	sb.n++
	sb.mu.Unlock()
	sb.rw.RUnlock()
	sb.wg.Done()
	sb.wg.Wait()
	if unsafe.Sizeof(paddedBucket{}) != cacheLine {
		t.Errorf("a padded bucket has size %d", unsafe.Sizeof(paddedBucket{}))
	}
	use := func(bs *[2]paddedBucket) {
		var all sync.WaitGroup
		for i := range bs {
			b := &bs[i]
			all.Add(1)
			sthread.Go(func() {
				defer all.Done()
				b.once.Do(func() { b.n = 10 })
				b.wg.Add(1)
				sthread.Go(func() {
					defer b.wg.Done()
					b.rw.RLock()
					seen := b.n
					b.rw.RUnlock()
					b.mu.Lock()
					b.n = max(b.n, seen) + 1
					b.mu.Unlock()
				})
				b.wg.Wait()
			})
		}
		all.Wait()
		for i := range bs {
			if bs[i].n != 11 {
				panic("a bucket lost its update")
			}
		}
	}
	// Outside a check.
	var bs [2]paddedBucket
	use(&bs)
	res, err := sthread.Explore(func() {
		var bs [2]paddedBucket
		use(&bs)
	})
	if err != nil || len(res.Bugs) > 0 || !res.Complete {
		t.Fatalf("Explore: %v, %+v", err, res)
	}
}

// TestRegisteredByAddress checks the registration of the mirrors by their
// address under a check: an object that is garbage now cannot lend its
// address, and its state, to a new one in the same execution (each new
// Mutex is unlocked, however many were left locked), and an object used in
// several executions starts afresh in each.
// lockBox is a Mutex in an object of a size class of its own.
type lockBox struct {
	mu sync.Mutex
	_  [100]byte
}

func TestRegisteredByAddress(t *testing.T) {
	var leftLocked, shared sync.Mutex
	turns := 0
	res, err := sthread.Explore(func() {
		leftLocked.Lock() // never unlocked: the next execution finds it unlocked
		for range 200 {
			b := new(lockBox)
			b.mu.Lock() // left locked, then garbage
			runtime.GC()
		}
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			sthread.Go(func() {
				defer wg.Done()
				b := new(lockBox)
				b.mu.Lock()
				shared.Lock()
				turns++
				shared.Unlock()
				b.mu.Unlock()
			})
		}
		wg.Wait()
	})
	if err != nil || len(res.Bugs) > 0 || !res.Complete {
		t.Fatalf("Explore: %v, %+v", err, res)
	}
	if res.Stats.Executions != 2 {
		t.Errorf("%d executions, want 2 (the two orders of the shared lock)", res.Stats.Executions)
	}
}
