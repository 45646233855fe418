package wire

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestWaitAdaptsItsPoll checks the checker's poll: a wait that had to
// sleep halves the next ones' poll, down to a sixteenth of SpinTime, and a
// wait answered while polling doubles it back to SpinTime.
func TestWaitAdaptsItsPoll(t *testing.T) {
	m, err := NewMailbox()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s := m.Slot(1)
	s.Reset(1, 0)
	if got := s.pollFor(); got != SpinTime {
		t.Fatalf("first poll %v, want %v", got, SpinTime)
	}
	// Nobody answers: each wait polls, sleeps and times out.
	for i := range 6 {
		if err := s.Wait(s.UpSeq(), time.Now().Add(time.Millisecond)); err != ErrTimeout {
			t.Fatalf("wait %d: %v, want a timeout", i, err)
		}
	}
	if got, want := s.pollFor(), SpinTime/16; got != want {
		t.Errorf("poll after six waits that slept %v, want %v", got, want)
	}
	// Waits answered while they polled: the poll doubles back, up to
	// SpinTime. (A wait answered at once changes nothing.)
	last := s.UpSeq()
	if err := s.Send(nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(last, time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got, want := s.pollFor(), SpinTime/16; got != want {
		t.Errorf("poll after a wait answered at once %v, want %v", got, want)
	}
	for range 5 {
		s.polled(s.pollFor(), true)
	}
	if got := s.pollFor(); got != SpinTime {
		t.Errorf("poll after five answered waits %v, want %v", got, SpinTime)
	}
	s.polled(SpinTime/16, false)
	// Another slot of the mailbox polls as this one learned.
	if got, want := m.Slot(2).pollFor(), s.pollFor(); got != want {
		t.Errorf("the other slot polls %v, want %v", got, want)
	}
}

// TestWaitFor checks the deadline WaitFor counts from its first look at
// the clock: a hand-over already there costs none (since stays zero); a
// wait that times out sets since and lasts at least the timeout; a wait
// given a since in the past times out at once.
func TestWaitFor(t *testing.T) {
	m, err := NewMailbox()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s := m.Slot(1)
	s.Reset(1, 0)
	last := s.UpSeq()
	if err := s.Send(nil); err != nil {
		t.Fatal(err)
	}
	var since time.Time
	if err := s.WaitFor(last, &since, time.Second); err != nil || !since.IsZero() {
		t.Fatalf("answered wait: %v, since %v (want nil, zero)", err, since)
	}
	t0 := time.Now()
	if err := s.WaitFor(s.UpSeq(), &since, 5*time.Millisecond); err != ErrTimeout {
		t.Fatalf("unanswered wait: %v, want a timeout", err)
	}
	if since.IsZero() || since.Before(t0) || time.Since(t0) < 5*time.Millisecond {
		t.Errorf("since %v (the wait began at %v), waited %v", since, t0, time.Since(t0))
	}
	old := time.Now().Add(-time.Hour)
	if err := s.WaitFor(s.UpSeq(), &old, time.Second); err != ErrTimeout {
		t.Errorf("wait past its deadline: %v, want a timeout", err)
	}
}

// TestNoPollOnTheOthersCPU: a side does not poll for an answer from a
// side that handed over from its own CPU (the other cannot answer before
// the poll ends), and polls otherwise; each side says where it handed
// over from.
func TestNoPollOnTheOthersCPU(t *testing.T) {
	m, err := NewMailbox()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s := m.Slot(1)
	s.Reset(1, 0)
	m.SetCPU(3)
	// The runtime handed over from CPU 3, where the checker runs: the
	// wait sleeps at once, and its poll learns nothing.
	atomic.StoreUint32(s.word(offRtCPU), 4)
	if err := s.Wait(s.UpSeq(), time.Now().Add(time.Millisecond)); err != ErrTimeout {
		t.Fatalf("wait: %v, want a timeout", err)
	}
	if got := s.pollFor(); got != SpinTime {
		t.Errorf("poll after a wait for a runtime on the checker's CPU %v, want %v (no poll)", got, SpinTime)
	}
	// From another CPU: the wait polls, in vain, and halves its poll.
	atomic.StoreUint32(s.word(offRtCPU), 2)
	if err := s.Wait(s.UpSeq(), time.Now().Add(time.Millisecond)); err != ErrTimeout {
		t.Fatalf("wait: %v, want a timeout", err)
	}
	if got := s.pollFor(); got != SpinTime/2 {
		t.Errorf("poll after a wait for a runtime on another CPU %v, want %v", got, SpinTime/2)
	}
	// The answer says where the checker is; the runtime's hand-over
	// where it is.
	if err := s.Answer([]byte{1}); err != nil {
		t.Fatal(err)
	}
	if got := atomic.LoadUint32(s.word(offCkCPU)); got != 4 {
		t.Errorf("checker_cpu %d after an answer from CPU 3, want 4", got)
	}
	m.SetCPU(-1)
	if err := s.Send([]byte{1}); err != nil {
		t.Fatal(err)
	}
	if got, want := atomic.LoadUint32(s.word(offRtCPU)), currentCPU(); got != want {
		t.Errorf("runtime_cpu %d after a hand-over from an unplaced thread, want %d (where it runs)", got, want)
	}
}

// TestWaitDownAdaptsItsPoll: the runtime's wait for the checker halves its
// poll after a wait that had to sleep and does not poll for a checker that
// answered from its own CPU.
func TestWaitDownAdaptsItsPoll(t *testing.T) {
	m, err := NewMailbox()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s := m.Slot(1)
	s.Reset(1, 0)
	if _, err := s.WaitDown(s.DownSeq(), time.Now().Add(time.Millisecond)); err != ErrTimeout {
		t.Fatalf("wait: %v, want a timeout", err)
	}
	if got := m.down.Load(); got != downPolls/2 {
		t.Errorf("poll after a wait that slept %d, want %d", got, downPolls/2)
	}
	m.SetCPU(5)
	atomic.StoreUint32(s.word(offCkCPU), 6)
	if _, err := s.WaitDown(s.DownSeq(), time.Now().Add(time.Millisecond)); err != ErrTimeout {
		t.Fatalf("wait: %v, want a timeout", err)
	}
	if got := m.down.Load(); got != downPolls/2 {
		t.Errorf("poll after a wait for a checker on this CPU %d, want %d (no poll)", got, downPolls/2)
	}
}
