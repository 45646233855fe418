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

// TestFingerprintCoversEveryField fails when a field is added to the
// model's records: Fingerprint must then hash it too.
func TestFingerprintCoversEveryField(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want int
	}{
		{World{}, 17}, {thread{}, 24}, {mutex{}, 4}, {cond{}, 2}, {condWaiter{}, 3}, // by is not hashed: it annotates dependency, not behaviour {sem{}, 2}, {rwlock{}, 2},
		{barrier{}, 2}, {once{}, 2}, {gomutex{}, 1}, {gorwmutex{}, 3}, {waitGroup{}, 2}, {channel{}, 5}, {parkedOn{}, 2},
		{Op{}, 7}, {Case{}, 3}, // Op.Eff is derived from the state (World.Annotated), never stored
	} {
		if got := reflect.TypeOf(tc.v).NumField(); got != tc.want {
			t.Errorf("%T has %d fields, Fingerprint hashes %d: hash the new ones", tc.v, got, tc.want)
		}
	}
}
