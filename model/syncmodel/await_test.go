package syncmodel

import (
	"slices"
	"testing"
)

// twoThreads returns a world where thread 1 created thread 2 and both
// have the given pending operations.
func twoThreads(t *testing.T, a, b Op) *World {
	t.Helper()
	w := NewWorld()
	if err := w.SetPending(1, Op{Kind: ThreadCreate}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Execute(1, 0); err != nil {
		t.Fatal(err)
	}
	for tid, op := range map[int]Op{1: a, 2: b} {
		if err := w.SetPending(tid, op); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

const flagAddr = 0x601100

func TestAwaitDisablesUntilAWriteOfWhatWasRead(t *testing.T) {
	load := Op{Kind: Read, Obj: flagAddr, Arg: 4}
	tests := []struct {
		name   string
		reads  []Span
		writer int
		write  Span
		woken  bool
	}{
		{"the word read", []Span{{flagAddr, 4}}, 2, Span{flagAddr, 4}, true},
		{"one byte of it", []Span{{flagAddr, 4}}, 2, Span{flagAddr + 3, 1}, true},
		{"the word after it", []Span{{flagAddr, 4}}, 2, Span{flagAddr + 4, 4}, false},
		{"by the waiting thread itself", []Span{{flagAddr, 4}}, 1, Span{flagAddr, 4}, false},
		{"an object, by address", []Span{{Addr: mA}}, 2, Span{Addr: mA}, true},
		{"another object", []Span{{Addr: mA}}, 2, Span{Addr: mB}, false},
		{"memory over an object", []Span{{Addr: mA}}, 2, Span{mA - 8, 16}, true},
		{"nothing read: for ever", nil, 2, Span{flagAddr, 4}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := twoThreads(t, load, Op{Kind: Yield})
			if err := w.Await(1, tt.reads); err != nil {
				t.Fatal(err)
			}
			if w.Enabled(1) {
				t.Fatal("thread 1 awaits but is enabled")
			}
			if got := w.Spinning(); !slices.Equal(got, []int{1}) {
				t.Errorf("Spinning = %v, want [1]", got)
			}
			if got := w.Blocked(); len(got) != 0 {
				t.Errorf("Blocked = %v: a thread that spins is not blocked", got)
			}
			if wt := w.WaitFor(1); wt.What != "spin" || !slices.Equal(wt.Reads, tt.reads) {
				t.Errorf("WaitFor = %+v, want a spin on %v", wt, tt.reads)
			}
			if _, err := w.Execute(1, 0); err == nil {
				t.Error("Execute ran a thread that awaits")
			}
			n := w.Wrote(tt.writer, tt.write)
			if got := w.Enabled(1); got != tt.woken || (n == 1) != tt.woken {
				t.Errorf("after a write of %v by thread %d: enabled %v (%d woken), want %v", tt.write, tt.writer, got, n, tt.woken)
			}
		})
	}
}

func TestAwaitAnnotationAndDependence(t *testing.T) {
	load := Op{Kind: Read, Obj: flagAddr, Arg: 4}
	w := twoThreads(t, load, Op{Kind: Yield})
	if err := w.Await(1, []Span{{flagAddr, 4}, {Addr: mA}}); err != nil {
		t.Fatal(err)
	}
	op, _ := w.Annotated(1)
	if len(op.Eff.Await) != 2 {
		t.Fatalf("Annotated: Await = %v, want the two spans read", op.Eff.Await)
	}
	tests := []struct {
		name string
		b    Op
		dep  bool
	}{
		{"a store to the flag", Op{Kind: Write, Obj: flagAddr, Arg: 4}, true},
		{"a load of the flag", Op{Kind: Read, Obj: flagAddr, Arg: 4}, false},
		{"a store elsewhere", Op{Kind: Write, Obj: flagAddr + 64, Arg: 4}, false},
		{"an unlock of the mutex read", Op{Kind: MutexUnlock, Obj: mA}, true},
		{"a trylock of it (it may succeed)", Op{Kind: MutexTrylock, Obj: mA}, true},
		{"an unlock of another mutex", Op{Kind: MutexUnlock, Obj: mB}, false},
		{"a post of a semaphore not read", Op{Kind: SemPost, Obj: sm}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Dependent(1, op, 2, tt.b); got != tt.dep {
				t.Errorf("Dependent(await, %s) = %v, want %v", tt.b, got, tt.dep)
			}
			if got := Dependent(2, tt.b, 1, op); got != tt.dep {
				t.Errorf("Dependent(%s, await) = %v, want %v (symmetric)", tt.b, got, tt.dep)
			}
		})
	}
	// Once it goes on, the operation is what it was.
	w.Wrote(2, Span{flagAddr, 4})
	if op, _ := w.Annotated(1); op.Eff.Await != nil {
		t.Errorf("annotation after the wake: Await = %v, want none", op.Eff.Await)
	}
}

func TestAwaitEndsWithANewReport(t *testing.T) {
	w := twoThreads(t, Op{Kind: Yield}, Op{Kind: Yield})
	if err := w.Await(1, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.SetPending(1, Op{Kind: Yield}); err != nil {
		t.Fatal(err)
	}
	if !w.Enabled(1) {
		t.Error("a thread that reported anew still awaits")
	}
}

func TestAwaitIsState(t *testing.T) {
	w := twoThreads(t, Op{Kind: Yield}, Op{Kind: Yield})
	before := w.Fingerprint()
	c := w.Clone()
	if err := w.Await(1, []Span{{flagAddr, 4}}); err != nil {
		t.Fatal(err)
	}
	if w.Fingerprint() == before {
		t.Error("an await does not change the fingerprint")
	}
	if c.Fingerprint() != before || !c.Enabled(1) {
		t.Error("the await of a world changed its clone")
	}
	w.Reset()
	if len(w.Spinning()) != 0 {
		t.Error("Reset kept an await")
	}
}

func TestRanWakesWhatAnOperationTouched(t *testing.T) {
	w := twoThreads(t, Op{Kind: MutexTrylock, Obj: mA}, Op{Kind: MutexLock, Obj: mA})
	// Thread 2 takes the mutex; thread 1's trylock fails: a poll.
	if _, err := w.Execute(2, 0); err != nil {
		t.Fatal(err)
	}
	op, _ := w.Pending(1)
	res, err := w.Execute(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	reads, polled, _ := w.Ran(1, op, res, false)
	if !polled || !slices.Equal(reads, []Span{{Addr: mA}}) {
		t.Fatalf("a failed trylock: Ran = %v, %v; want a poll of the mutex", reads, polled)
	}
	if err := w.SetPending(1, op); err != nil {
		t.Fatal(err)
	}
	if err := w.Await(1, reads); err != nil {
		t.Fatal(err)
	}
	if err := w.SetPending(2, Op{Kind: MutexUnlock, Obj: mA}); err != nil {
		t.Fatal(err)
	}
	unlock, _ := w.Pending(2)
	res, err = w.Execute(2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, polled, woken := w.Ran(2, unlock, res, false); polled || woken != 1 {
		t.Fatalf("the unlock: Ran polled %v, woke %d; want 1 woken", polled, woken)
	}
	if !w.Enabled(1) {
		t.Error("the unlock did not end the wait of the trylock's thread")
	}
}

func TestPoll(t *testing.T) {
	sel := Op{Kind: Select, Arg: 1, Cases: []Case{{Chan: 0x700}, {Chan: 0x800, Send: true}}}
	tests := []struct {
		name      string
		op        Op
		code      int64
		unchanged bool
		reads     []Span
		ok        bool
	}{
		{"a load", Op{Kind: Read, Obj: flagAddr, Arg: 8}, 0, false, []Span{{flagAddr, 8}}, true},
		{"a store", Op{Kind: Write, Obj: flagAddr, Arg: 8}, 0, false, nil, false},
		{"a failed compare-and-swap", Op{Kind: Write, Obj: flagAddr, Arg: 8}, 0, true, []Span{{flagAddr, 8}}, true},
		{"a yield", Op{Kind: Yield}, 0, false, nil, true},
		{"a trylock that failed", Op{Kind: MutexTrylock, Obj: mA}, EBUSY, false, []Span{{Addr: mA}}, true},
		{"a trylock that took it", Op{Kind: MutexTrylock, Obj: mA}, OK, false, nil, false},
		{"a sem_trywait that failed", Op{Kind: SemTrywait, Obj: sm}, EAGAIN, false, []Span{{Addr: sm}}, true},
		{"a timed lock that timed out", Op{Kind: MutexTimedlock, Obj: mA}, ETIMEDOUT, false, []Span{{Addr: mA}}, true},
		{"a Go TryLock that failed", Op{Kind: GoMutexTryLock, Obj: mA}, 0, false, []Span{{Addr: mA}}, true},
		{"a Go TryLock that took it", Op{Kind: GoMutexTryLock, Obj: mA}, 1, false, nil, false},
		{"a select's default", sel, ChanResult{Via: ViaDefault, Case: -1}.Code(), false, []Span{{Addr: 0x700}, {Addr: 0x800}}, true},
		{"a select's case", sel, ChanResult{Via: ViaBuffer, Case: 0}.Code(), false, nil, false},
		{"a lock", Op{Kind: MutexLock, Obj: mA}, OK, false, nil, false},
		{"a choice", Op{Kind: Choose, Arg: 2}, 1, false, nil, false},
		{"time", Op{Kind: TimerWait, Arg: 5}, 0, false, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reads, ok := Poll(tt.op, Result{Code: tt.code}, tt.unchanged)
			if ok != tt.ok || !slices.Equal(reads, tt.reads) {
				t.Errorf("Poll(%s, %d, %v) = %v, %v; want %v, %v", tt.op, tt.code, tt.unchanged, reads, ok, tt.reads, tt.ok)
			}
			// Into room of its own, after what is there already.
			room := make([]Span, 1, 4)
			room[0] = Span{Addr: 1}
			n := testing.AllocsPerRun(10, func() {
				reads, ok = AppendPolled(room[:1:4], &tt.op, Result{Code: tt.code}, tt.unchanged)
			})
			if ok != tt.ok || !slices.Equal(reads[1:], tt.reads) || reads[0] != room[0] {
				t.Errorf("AppendPolled(%s, %d, %v) = %v, %v; want %v, %v after %v", tt.op, tt.code, tt.unchanged, reads, ok, tt.reads, tt.ok, room[0])
			}
			if n != 0 {
				t.Errorf("AppendPolled allocates %v times per call with room enough; want 0", n)
			}
		})
	}
}

// A step of a search calls Ran once: telling the world what a
// synchronization operation touched must not allocate (it did, a slice of
// the touched objects per step: 36 of the 42 allocations per execution of
// an exhaustive search of the counter).
func TestRanAllocatesNothing(t *testing.T) {
	tests := []struct {
		name string
		op   Op
	}{
		{"a mutex unlock", Op{Kind: MutexUnlock, Obj: mA}},
		{"a condition wait", Op{Kind: CondWait, Obj: flagAddr, Obj2: mA}},
		{"a memory write", Op{Kind: Write, Obj: flagAddr, Arg: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := twoThreads(t, Op{Kind: MutexLock, Obj: mA}, Op{Kind: Read, Obj: flagAddr, Arg: 4})
			if n := testing.AllocsPerRun(100, func() { w.Ran(1, tt.op, Result{}, false) }); n != 0 {
				t.Errorf("Ran allocates %v times per call; want 0", n)
			}
			var buf [4]Span
			if got := AppendTouched(buf[:0], &tt.op); !slices.Equal(got, Touched(tt.op)) {
				t.Errorf("AppendTouched = %v, Touched = %v", got, Touched(tt.op))
			}
		})
	}
}
