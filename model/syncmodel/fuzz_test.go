package syncmodel

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// play drives a world with operations decoded from data, four bytes per
// operation, and checks the model's invariants after every step.
func play(t *testing.T, data []byte) {
	if len(data) > 4*300 {
		data = data[:4*300] // keep every input fast
	}
	w := NewWorld()
	objs := [...]uint64{0, 0x10, 0x20}
	for len(data) >= 4 {
		b := data[:4]
		data = data[4:]
		tid := int(b[0]) % (w.NumThreads() + 2) // 0 and NumThreads+1 are unknown
		op := Op{
			Kind: Kind(int(b[1]) % (NumKinds + 1)),
			Obj:  objs[b[2]%3],
			Obj2: objs[b[2]/3%3],
			Arg:  int64(b[3]%5) - 1,
		}
		if op.Kind == Select {
			op.Cases, op.Arg = fuzzCases(objs, b[2], b[3])
		}
		if th := w.thread(tid); th != nil && b[3] >= 128 {
			// Mostly complete waits in progress, which random kinds
			// rarely do.
			switch {
			case th.next == CondReacquire:
				op = Op{Kind: CondReacquire, Obj: th.nextObj, Obj2: th.condMutex, Arg: int64(b[3] % 2)}
			case th.next == BarrierLeave:
				op = Op{Kind: BarrierLeave, Obj: th.nextObj}
			case th.next != 0:
				op = Op{Kind: th.next, Obj: th.nextObj, Cases: th.nextCases}
			case th.inGoCond:
				op = Op{Kind: GoCondWake, Obj: th.goCondObj}
			}
		}
		if err := w.SetPending(tid, op); err != nil {
			continue
		}
		if !w.Enabled(tid) {
			if _, err := w.Execute(tid, 0); !errors.Is(err, ErrNotEnabled) {
				t.Fatalf("Execute of a disabled thread: %v", err)
			}
			checkInvariants(t, w)
			continue
		}
		for u := 1; u <= w.NumThreads(); u++ {
			checkCommute(t, w, tid, u)
		}
		before := w.Clone()
		_, err := w.Execute(tid, int(b[3]%3)-1)
		if err != nil && !reflect.DeepEqual(w, before) {
			t.Fatalf("thread %d: %s: failed with %v but changed the world", tid, op, err)
		}
		checkInvariants(t, w)
	}
}

// checkCommute checks that if the pending operations of threads a and b are
// enabled and independent, executing them in either order is possible and
// gives the same results and the same world.
func checkCommute(t *testing.T, w *World, a, b int) {
	t.Helper()
	opa, _ := w.Pending(a)
	opb, _ := w.Pending(b)
	if a == b || !w.Enabled(a) || !w.Enabled(b) || Dependent(a, opa, b, opb) {
		return
	}
	// A join or detach of a thread not yet created may name the thread a
	// concurrent creation creates: a documented blind spot of Dependent.
	for _, op := range []Op{opa, opb} {
		if (op.Kind == ThreadJoin || op.Kind == ThreadDetach) && w.thread(int(op.Arg)) == nil {
			return
		}
	}
	type outcome struct {
		res Result
		err string
	}
	exec := func(w *World, tid int) outcome {
		if !w.Enabled(tid) {
			op, _ := w.Pending(tid)
			t.Fatalf("executing independent %d %s and %d %s disabled thread %d (%s)", a, opa, b, opb, tid, op)
		}
		res, err := w.Execute(tid, 0)
		if err != nil {
			// Messages say which holders have finished, which a
			// concurrent ThreadExit changes; the misuse is the same.
			return outcome{err: strings.ReplaceAll(err.Error(), " (finished)", "")}
		}
		return outcome{res: res}
	}
	w1, w2 := w.Clone(), w.Clone()
	a1, b1 := exec(w1, a), exec(w1, b)
	b2, a2 := exec(w2, b), exec(w2, a)
	if a1 != a2 || b1 != b2 {
		t.Fatalf("independent %d %s and %d %s: results depend on the order: %+v %+v, %+v %+v",
			a, opa, b, opb, a1, b1, a2, b2)
	}
	if !reflect.DeepEqual(w1, w2) {
		t.Fatalf("independent %d %s and %d %s: the world depends on the order", a, opa, b, opb)
	}
}

// fuzzCases decodes up to three select cases, their channels' capacity and
// the default flag from two bytes.
func fuzzCases(objs [3]uint64, x, y byte) ([]Case, int64) {
	n := int(x % 4)
	cases := make([]Case, n)
	for i := range cases {
		bits := y >> (2 * i)
		cases[i] = Case{Send: bits&1 != 0, Chan: objs[int(bits>>1)%3], Cap: int64(x / 4 % 3)}
	}
	return cases, int64(x / 16 % 2)
}

// checkGoInvariants checks the state of the Go primitives and of the threads
// parked on them.
func checkGoInvariants(t *testing.T, w *World) {
	t.Helper()
	for a, r := range w.gorws {
		if r.locked && (r.writer == 0 || len(r.readers) > 0) {
			t.Fatalf("go rwmutex %#x locked with writer %d and readers %v", a, r.writer, r.readers)
		}
		for tid, n := range r.readers {
			if n <= 0 {
				t.Fatalf("go rwmutex %#x: reader %d count %d", a, tid, n)
			}
		}
	}
	for a, g := range w.wgs {
		// (A counter below zero is what Go leaves after its panic.)
		if len(g.waiters) > 0 && g.count == 0 {
			t.Fatalf("wait group %#x: counter %d with waiters %v", a, g.count, g.waiters)
		}
		for _, tid := range g.waiters {
			if th := w.thread(tid); th.next != WGWake || th.woken {
				t.Fatalf("wait group %#x: waiter %d not parked", a, tid)
			}
		}
	}
	queued := map[int]bool{}
	for a, c := range w.chans {
		switch {
		case c.len < 0 || c.len > c.cap:
			t.Fatalf("channel %#x: len %d cap %d", a, c.len, c.cap)
		case len(c.sendq) > 0 && (c.closed || c.len != c.cap):
			t.Fatalf("channel %#x: parked senders %v with len %d cap %d closed %v", a, c.sendq, c.len, c.cap, c.closed)
		case len(c.recvq) > 0 && (c.closed || c.len != 0):
			t.Fatalf("channel %#x: parked receivers %v with len %d closed %v", a, c.recvq, c.len, c.closed)
		}
		for _, p := range slices.Concat(c.sendq, c.recvq) {
			if th := w.thread(p.tid); th.next != ChanWake || th.woken {
				t.Fatalf("channel %#x: queued thread %d is not parked", a, p.tid)
			}
			queued[p.tid] = true
		}
	}
	for i := range w.threads {
		th := &w.threads[i]
		if th.next != ChanWake || th.finished {
			continue
		}
		if th.woken && queued[i+1] {
			t.Fatalf("woken thread %d still queued", i+1)
		}
		if th.woken {
			continue
		}
		cases := th.nextCases
		if th.parkedOp != Select {
			cases = []Case{{Send: th.parkedOp == ChanSend, Chan: th.nextObj}}
		}
		for k, c := range cases {
			if c.Chan == 0 {
				continue
			}
			q := w.chans[c.Chan].recvq
			if c.Send {
				q = w.chans[c.Chan].sendq
			}
			if !slices.Contains(q, parkedOn{tid: i + 1, cas: k}) {
				t.Fatalf("parked thread %d is not queued on channel %#x (case %d)", i+1, c.Chan, k)
			}
		}
	}
}

func checkInvariants(t *testing.T, w *World) {
	t.Helper()
	live := w.Live()
	for _, tid := range w.Blocked() {
		if !slices.Contains(live, tid) {
			t.Fatalf("blocked thread %d not live", tid)
		}
		if wt := w.WaitFor(tid); wt.What == "" {
			op, _ := w.Pending(tid)
			t.Fatalf("blocked thread %d (%s) has no wait", tid, op)
		}
	}
	for tid := 1; tid <= w.NumThreads(); tid++ {
		if w.Enabled(tid) && !reflect.DeepEqual(w.WaitFor(tid), Wait{}) {
			t.Fatalf("enabled thread %d has a wait", tid)
		}
	}
	for _, ms := range []map[uint64]*mutex{w.mutexes, w.spins} {
		for a, m := range ms {
			if (m.owner == 0) != (m.count == 0) || m.count < 0 {
				t.Fatalf("mutex %#x: owner %d count %d", a, m.owner, m.count)
			}
		}
	}
	for a, r := range w.rwlocks {
		if r.writer != 0 && len(r.readers) > 0 {
			t.Fatalf("rwlock %#x has a writer and readers", a)
		}
		for tid, n := range r.readers {
			if n <= 0 {
				t.Fatalf("rwlock %#x: reader %d count %d", a, tid, n)
			}
		}
	}
	for a, s := range w.sems {
		if s.value < 0 {
			t.Fatalf("semaphore %#x value %d", a, s.value)
		}
	}
	for a, b := range w.barriers {
		if int64(len(b.waiting)) >= b.count {
			t.Fatalf("barrier %#x: %d waiting of %d", a, len(b.waiting), b.count)
		}
	}
	checkGoInvariants(t, w)
	if c := w.Clone(); !reflect.DeepEqual(c, w) {
		t.Fatal("clone differs")
	}
}

func FuzzWorld(f *testing.F) {
	f.Add([]byte{1, byte(MutexLock), 1, 1, 1, byte(MutexLock), 1, 1})
	f.Add([]byte{1, byte(ThreadCreate), 0, 1, 2, byte(MutexLock), 1, 1, 2, byte(CondWait), 4, 1, 2, 0, 0, 200})
	f.Add([]byte{1, byte(ThreadCreate), 0, 1, 2, byte(Select), 2, 0x4, 1, byte(ChanSend), 1, 1, 2, 0, 0, 200})
	f.Fuzz(play)
}

// TestRandomExecutions plays many random operation sequences.
func TestRandomExecutions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 1000
	if testing.Short() {
		n = 300
	}
	for range n {
		data := make([]byte, 4*(1+r.IntN(200)))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		// Bias thread ids towards existing threads and creations early on,
		// and half of the executions towards the Go primitives.
		goOnly := r.IntN(2) == 0
		for i := 0; i < len(data); i += 4 {
			data[i] = byte(1 + r.IntN(4))
			if goOnly {
				data[i+1] = byte(int(GoMutexLock) + r.IntN(NumKinds-int(GoMutexLock)))
			}
			if r.IntN(10) == 0 {
				data[i+1] = byte(ThreadCreate)
			}
		}
		play(t, data)
	}
}
