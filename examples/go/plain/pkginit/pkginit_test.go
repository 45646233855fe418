package pkginit

import "testing"

// TestAsk asks the server that the package started as it initialised:
// stdbg cannot judge it (the server runs outside its control).
func TestAsk(t *testing.T) {
	if v := Ask(); v != 42 {
		t.Errorf("the answer is %d", v)
	}
}

// TestReady waits on a channel closed as the package initialised.
func TestReady(t *testing.T) {
	Ready()
}

// TestStop cancels a context made as the package initialised.
func TestStop(t *testing.T) {
	Stop()
}
