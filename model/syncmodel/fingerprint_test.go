package syncmodel

import (
	"reflect"
	"testing"
)

func TestFingerprint(t *testing.T) {
	lock := Op{Kind: MutexLock, API: APIMutexLock, Obj: 0x10}
	unlock := Op{Kind: MutexUnlock, API: APIMutexUnlock, Obj: 0x10}
	yield := Op{Kind: Yield, API: APISchedYield}

	fresh := NewWorld()
	mustPending(t, fresh, 1, yield)

	// Locking and unlocking a mutex leaves the world as if the mutex had
	// never been used.
	w := NewWorld()
	mustPending(t, w, 1, lock)
	mustExecute(t, w, 1)
	mustPending(t, w, 1, unlock)
	locked := w.Fingerprint()
	mustExecute(t, w, 1)
	mustPending(t, w, 1, yield)
	if w.Fingerprint() != fresh.Fingerprint() {
		t.Errorf("a mutex locked and unlocked again changes the fingerprint")
	}
	// A held mutex, or another pending operation, differs.
	if locked == fresh.Fingerprint() {
		t.Errorf("a held mutex does not change the fingerprint")
	}
	other := NewWorld()
	mustPending(t, other, 1, unlock)
	if other.Fingerprint() == fresh.Fingerprint() {
		t.Errorf("the pending operation does not count")
	}
	// The same world, copied, has the same fingerprint.
	if c := w.Clone(); c.Fingerprint() != w.Fingerprint() {
		t.Errorf("a clone has another fingerprint")
	}
}

func mustPending(t *testing.T, w *World, tid int, op Op) {
	t.Helper()
	if err := w.SetPending(tid, op); err != nil {
		t.Fatal(err)
	}
}

func mustExecute(t *testing.T, w *World, tid int) {
	t.Helper()
	if _, err := w.Execute(tid, 0); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkFingerprint measures the model's part of a state fingerprint
// for a world of four threads and a few objects.
func BenchmarkFingerprint(b *testing.B) {
	w := NewWorld()
	for tid := 1; tid <= 3; tid++ {
		if err := w.SetPending(1, Op{Kind: ThreadCreate, API: APIPthreadCreate}); err != nil {
			b.Fatal(err)
		}
		res, err := w.Execute(1, 0)
		if err != nil {
			b.Fatal(err)
		}
		if err := w.SetPending(res.NewThread, Op{Kind: MutexLock, API: APIMutexLock, Obj: uint64(0x100 * tid)}); err != nil {
			b.Fatal(err)
		}
		if _, err := w.Execute(res.NewThread, 0); err != nil {
			b.Fatal(err)
		}
		if err := w.SetPending(res.NewThread, Op{Kind: Yield, API: APISchedYield}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.SetPending(1, Op{Kind: Yield, API: APISchedYield}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		w.Fingerprint()
	}
}

// TestFingerprintCoversEveryField fails when a field is added to one of
// the model's records, or a record is added: Fingerprint (for the generic
// records) or the fingerprint method of the primitive the record belongs
// to must then hash it too, and the record be counted here. Every record
// reachable from World must be listed, so that a new primitive's state is
// not forgotten.
func TestFingerprintCoversEveryField(t *testing.T) {
	// The number of fields of each record that Fingerprint accounts for.
	accounted := map[reflect.Type]int{}
	for _, tc := range []struct {
		v any
		n int
	}{
		// Generic: the world and its threads (every primitive's part of
		// both is hashed by its fingerprint method), operations.
		// World.misuseAt is not hashed: it is 0 between steps.
		{World{}, 17}, {thread{}, 17}, {Op{}, 7}, {Case{}, 3},
		// Mutexes and spin locks.
		{mutexState{}, 1}, {spinState{}, 1}, {mutex{}, 4},
		// Condition variables. condWaiter.by is not hashed: it annotates
		// dependency, not behaviour.
		{condState{}, 2}, {condThread{}, 6}, {cond{}, 2}, {condWaiter{}, 3},
		{semState{}, 1}, {sem{}, 2},
		{rwlockState{}, 1}, {rwlock{}, 2},
		{barrierState{}, 1}, {barrierThread{}, 1}, {barrier{}, 2},
		{onceState{}, 1}, {once{}, 2},
		{goMutexState{}, 1}, {gomutex{}, 1},
		{goRWState{}, 1}, {gorwmutex{}, 3},
		{wgState{}, 1}, {waitGroup{}, 2},
		{chanState{}, 1}, {channel{}, 5}, {parkedOn{}, 2},
		// timeState's view, viewGen and gen are derived (timeView).
		{timeState{}, 8}, {timeThread{}, 4},
		{awaitThread{}, 2}, {Span{}, 2},
		{bubbleState{}, 1}, {bubbleThread{}, 1}, {bubble{}, 2},
	} {
		typ := reflect.TypeOf(tc.v)
		accounted[typ] = tc.n
		if got := typ.NumField(); got != tc.n {
			t.Errorf("%v has %d fields, Fingerprint hashes %d: hash the new ones", typ, got, tc.n)
		}
	}
	// Records that are not state: Op.Eff is derived from the state
	// (World.Annotated), never stored.
	derived := map[reflect.Type]bool{reflect.TypeFor[Effect](): true, reflect.TypeFor[timeView](): true, reflect.TypeFor[bubbleView](): true}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(typ.Elem())
		case reflect.Map:
			walk(typ.Key())
			walk(typ.Elem())
		case reflect.Struct:
			if seen[typ] || derived[typ] {
				return
			}
			seen[typ] = true
			if _, ok := accounted[typ]; !ok {
				t.Errorf("%v is a record of the model that Fingerprint does not account for: hash its fields and count them here", typ)
			}
			for i := range typ.NumField() {
				walk(typ.Field(i).Type)
			}
		}
	}
	walk(reflect.TypeFor[World]())
	for typ := range accounted {
		if !seen[typ] {
			t.Errorf("%v is counted but is no record of the model", typ)
		}
	}
}
