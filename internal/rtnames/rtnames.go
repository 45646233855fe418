// Package rtnames holds the names through which stdbg's Go runtime (package
// sthread and its packages) is reached from outside the target process: the
// environment variables the command line sets, the function and variable a
// debugger stops at and reads, and which functions are the runtime's. The
// runtime, the command line, the symbolizer and the debugger bridge
// (package dlvbridge) all import it, so none of them needs the others for a
// name.
package rtnames

import (
	"fmt"
	"strings"
	"time"
)

const (
	// ReplayEnv names the environment variable that makes a Go target run
	// one schedule instead of searching ("1;1;2").
	ReplayEnv = "STDBG_REPLAY_SCHEDULE"
	// RandSeedEnv names the environment variable that sets the seed of
	// the random numbers of a Go target's executions.
	RandSeedEnv = "STDBG_RAND_SEED"
	// MaxStallEnv names the environment variable that sets the stall
	// bound of a Go target's executions (ParseMaxStall): how long time
	// may pass while a goroutine that can run does not.
	MaxStallEnv = "STDBG_MAX_STALL"

	// SearchEnv names the environment variable that hands a Go target a
	// whole search to run in its process (package targetsearch's Spec,
	// as JSON): the runtime searches when it is set.
	SearchEnv = "STDBG_SEARCH"

	// Package is the import path of the runtime.
	Package = "github.com/stdbg/stdbg/sthread"
	// HookFunc is the function a replay calls before every step, as Delve
	// spells it.
	HookFunc = Package + ".stepHook"
	// StateVar is the expression of the replay state published at
	// HookFunc, as Delve spells it.
	StateVar = `"` + Package + `".debugState`
)

// IsRuntimeFunc reports whether the Go function of the qualified name (as
// the Go runtime and DWARF spell it: "github.com/stdbg/stdbg/sthread.Go",
// "github.com/stdbg/stdbg/sthread/sync.(*Mutex).Lock") belongs to package
// sthread or to one of the packages under it (its runtime, its mirrors of
// the standard library), not counting their tests' packages.
func IsRuntimeFunc(name string) bool {
	rest, ok := strings.CutPrefix(name, Package)
	if !ok {
		return false
	}
	if strings.HasPrefix(rest, ".") {
		return true
	}
	if !strings.HasPrefix(rest, "/") {
		return false // another package, such as sthread_test
	}
	dot := strings.IndexByte(rest, '.')
	return dot > 1 && !strings.HasSuffix(rest[:dot], "_test")
}

// ParseMaxStall reads a stall bound as the max-stall setting and
// MaxStallEnv spell it: a duration of Go's syntax, at least 0 ("50ms";
// "0": time passes only when every goroutine is blocked or waits for
// time), or "none" (no bound: time may pass at any moment), which it
// returns as -1.
func ParseMaxStall(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "none" {
		return -1, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil && s != "" && strings.Trim(s, "0123456789") == "" {
		// A bare number of nanoseconds: what an environment variable
		// or a YAML number may hold.
		d, err = time.ParseDuration(s + "ns")
	}
	if err != nil || d < 0 {
		return 0, fmt.Errorf("stall bound %q: want a duration of at least 0 (50ms, 1s, 0) or none", s)
	}
	return d, nil
}

// FormatMaxStall spells a stall bound as ParseMaxStall reads it.
func FormatMaxStall(d time.Duration) string {
	if d < 0 {
		return "none"
	}
	return d.String()
}
