package rtnames_test

import (
	"fmt"
	"testing"

	"github.com/stdbg/stdbg/internal/rtnames"
)

// Example shows how a debugger finds the replay of a Go target.
func Example() {
	fmt.Println("break at", rtnames.HookFunc)
	fmt.Println("read", rtnames.StateVar)
	// Output:
	// break at github.com/stdbg/stdbg/sthread.stepHook
	// read "github.com/stdbg/stdbg/sthread".debugState
}

func TestIsRuntimeFunc(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"github.com/stdbg/stdbg/sthread.Go", true},
		{"github.com/stdbg/stdbg/sthread.(*Chan[go.shape.int]).Send", true},
		{"github.com/stdbg/stdbg/sthread/sync.(*Mutex).Lock", true},
		{"github.com/stdbg/stdbg/sthread/internal/rt.(*Thread).run", true},
		{"github.com/stdbg/stdbg/sthread/math/rand/v2.N[go.shape.int]", true},
		{"github.com/stdbg/stdbg/sthread/lang.ChanSend[go.shape.struct { example.com/m.x int }]", true},
		// Tests of sthread's packages are the user's code of a check.
		{"github.com/stdbg/stdbg/sthread_test.TestX", false},
		{"github.com/stdbg/stdbg/sthread/time_test.TestTimers.func1", false},
		{"github.com/stdbg/stdbg/sthreadx.F", false},
		{"github.com/stdbg/stdbg/examples/go.TestEmbrace", false},
		{"sync.(*Mutex).Lock", false},
		{"main.main", false},
	}
	for _, tt := range tests {
		if got := rtnames.IsRuntimeFunc(tt.name); got != tt.want {
			t.Errorf("IsRuntimeFunc(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
