package rt

import (
	"os"

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
	_, ok := os.LookupEnv(rtnames.SearchEnv)
	return ok
}
