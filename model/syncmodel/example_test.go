package syncmodel_test

import (
	"fmt"

	"github.com/stdbg/stdbg/model/syncmodel"
)

// step reports op as tid's next operation and, if it is enabled, executes it.
func step(w *syncmodel.World, tid int, op syncmodel.Op) {
	if err := w.SetPending(tid, op); err != nil {
		panic(err)
	}
	if !w.Enabled(tid) {
		fmt.Printf("thread %d blocks in %s\n", tid, op)
		return
	}
	res, err := w.Execute(tid, 0)
	if err != nil {
		panic(err)
	}
	fmt.Printf("thread %d: %s = %d\n", tid, op, res.Code)
}

// Two threads lock two mutexes in opposite orders (a deadly embrace). In the
// interleaving where each takes its first mutex before the other takes its
// second, both threads block for ever.
func Example() {
	const a, b = 0x601040, 0x601080
	lock := func(m uint64) syncmodel.Op {
		return syncmodel.Op{Kind: syncmodel.MutexLock, API: syncmodel.APIMutexLock, Obj: m, Arg: syncmodel.MutexNormal}
	}
	w := syncmodel.NewWorld()
	step(w, 1, syncmodel.Op{Kind: syncmodel.ThreadCreate, API: syncmodel.APIPthreadCreate})
	step(w, 1, lock(a))
	step(w, 2, lock(b))
	step(w, 1, lock(b))
	step(w, 2, lock(a))

	fmt.Println("blocked:", w.Blocked())
	for _, tid := range w.Blocked() {
		wt := w.WaitFor(tid)
		fmt.Printf("thread %d waits for %s %#x, %s\n", tid, wt.What, wt.Obj, wt.Detail)
	}
	// Output:
	// thread 1: pthread_create() = 2
	// thread 1: pthread_mutex_lock(0x601040) = 0
	// thread 2: pthread_mutex_lock(0x601080) = 0
	// thread 1 blocks in pthread_mutex_lock(0x601080)
	// thread 2 blocks in pthread_mutex_lock(0x601040)
	// blocked: [1 2]
	// thread 1 waits for mutex 0x601080, held by thread 2
	// thread 2 waits for mutex 0x601040, held by thread 1
}

// Dependent tells which operations of different threads partial-order
// reduction must not reorder.
func ExampleDependent() {
	lock := func(m uint64) syncmodel.Op { return syncmodel.Op{Kind: syncmodel.MutexLock, Obj: m} }
	fmt.Println(syncmodel.Dependent(1, lock(0x10), 2, lock(0x10)))
	fmt.Println(syncmodel.Dependent(1, lock(0x10), 2, lock(0x20)))
	// Output:
	// true
	// false
}

// A search that compares many pairs of events (DPOR's race analysis)
// passes them by reference: an Op is too big to copy for each question.
func ExampleDependentRef() {
	unlock := syncmodel.Op{Kind: syncmodel.MutexUnlock, Obj: 0x10}
	lock := syncmodel.Op{Kind: syncmodel.MutexLock, Obj: 0x10}
	other := syncmodel.Op{Kind: syncmodel.MutexLock, Obj: 0x20}
	fmt.Println(syncmodel.DependentRef(1, &unlock, 2, &lock), syncmodel.MustPrecedeRef(1, &unlock, 2, &lock))
	fmt.Println(syncmodel.DependentRef(1, &unlock, 2, &other), syncmodel.MustPrecedeRef(1, &unlock, 2, &other))
	// Output:
	// true true
	// false false
}
