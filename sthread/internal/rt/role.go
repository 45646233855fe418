package rt

import (
	"os"
	"sync/atomic"

	"github.com/stdbg/stdbg/internal/rtnames"
)

// Environment variables through which stdbg find hands a target process
// that runs one execution per process its channels.
const (
	EnvCtl     = "STDBG_CTL"
	EnvMailbox = "STDBG_MAILBOX"
	EnvChecker = "STDBG_CHECKER_PID"
)

// Remote reports whether stdbg find started this process to run
// executions for a checker in another process.
//
//go:norace
func Remote() bool {
	return os.Getenv(EnvCtl) != "" && os.Getenv(EnvMailbox) != ""
}

// Searching reports whether stdbg find started this process to search in
// it (see package targetsearch).
//
//go:norace
func Searching() bool {
	if searchingTests.Load() {
		return true
	}
	_, ok := os.LookupEnv(rtnames.SearchEnv)
	return ok
}

// searchingTests is set in a process that searches several tests in turn,
// once the first took the search's settings from the environment (and
// removed them, which the program's own child processes must not see).
var searchingTests atomic.Bool

// SearchingTests marks the process as one that searches several tests in
// turn: Searching reports true from then on.
//
//go:norace
func SearchingTests() { searchingTests.Store(true) }
