package wire

import (
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
