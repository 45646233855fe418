package syncmodel

import "testing"

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
