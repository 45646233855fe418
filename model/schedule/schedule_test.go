package schedule

import "testing"

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		in   string
		want Schedule
		text string
	}{
		{"1;1;2", Threads(1, 1, 2), "1;1;2"},
		{"", Schedule{}, ""},
		{"Path = 1;2;1", Threads(1, 2, 1), "1;2;1"},
		{" 1 ; 2:3 ;1", Schedule{{1, NoChoice}, {2, 3}, {1, NoChoice}}, "1;2:3;1"},
		{"2:0", Schedule{{2, 0}}, "2:0"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		if !got.Equal(tt.want) {
			t.Errorf("Parse(%q) = %v, want %v", tt.in, got, tt.want)
		}
		if s := got.String(); s != tt.text {
			t.Errorf("String() = %q, want %q", s, tt.text)
		}
		again, err := Parse(got.String())
		if err != nil || !again.Equal(got) {
			t.Errorf("round trip of %q gave %v, %v", tt.in, again, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"1;;2", "0", "-1", "a", "1:x", "1:-2", "1;2;"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) succeeded, want error", in)
		}
	}
}

func TestPreemptions(t *testing.T) {
	s := Threads(1, 1, 2, 1)
	all := func(i, tid int) bool { return true }
	if got := s.Preemptions(all); got != 2 {
		t.Errorf("all enabled: got %d preemptions, want 2", got)
	}
	// Thread 1 blocked before step 2: the switch to 2 is not a preemption.
	blocked := func(i, tid int) bool { return !(i == 2 && tid == 1) }
	if got := s.Preemptions(blocked); got != 1 {
		t.Errorf("got %d preemptions, want 1", got)
	}
}
