package sthread

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"github.com/stdbg/stdbg/sthread/internal/rt"
	"github.com/stdbg/stdbg/target/targetsearch"
)

// The search inside the target. `stdbg find` starts a Go program or test
// once with a search in its environment (targetsearch.SpecEnv); the program's
// Run, Check or wrapped main then runs the whole search here, in process,
// and streams what it finds back to stdbg (see package targetsearch).

// UnderStdbg reports whether stdbg started this process to check the
// program: to search its schedules in process (stdbg find), to run one
// execution for a checker in another process, or to replay a schedule.
// A test with a deliberate bug can skip itself under plain go test with it.
//
//go:norace
func UnderStdbg() bool {
	_, replaying := os.LookupEnv(ReplayEnv)
	return rt.Searching() || rt.Remote() || replaying
}

// serveSearchOrDie runs the search stdbg asked for on f and returns the
// exit status for the process.
//
//go:norace
func serveSearchOrDie(f func(), cfg *config) int {
	if err := serveSearch(f, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "sthread:", err)
		return 70
	}
	return 0
}

//go:norace
func serveSearch(f func(), cfg *config) error {
	spec, _, err := targetsearch.Requested()
	if err != nil {
		return err
	}
	streamFD, err := envFD(targetsearch.StreamEnv)
	if err != nil {
		return err
	}
	stopFD, err := envFD(targetsearch.StopEnv)
	if err != nil {
		return err
	}
	traceFD := -1
	if os.Getenv(targetsearch.TraceEnv) != "" {
		if traceFD, err = envFD(targetsearch.TraceEnv); err != nil {
			return err
		}
	}
	for _, k := range []string{targetsearch.SpecEnv, targetsearch.StreamEnv, targetsearch.StopEnv, targetsearch.TraceEnv} {
		os.Unsetenv(k)
	}
	stream := os.NewFile(uintptr(streamFD), "stdbg-stream")
	var tr *targetsearch.Trace
	if traceFD >= 0 {
		f := os.NewFile(uintptr(traceFD), "stdbg-trace")
		tr, err = targetsearch.MapTrace(f)
		f.Close()
		if err != nil {
			return err
		}
		defer tr.Close()
	}
	// stdbg closes its end of the stop pipe to stop the search, and so
	// does its death. The search polls it (targetsearch.Serve starts no
	// goroutine).
	if err := syscall.SetNonblock(stopFD, true); err != nil {
		return fmt.Errorf("the stop pipe: %w", err)
	}
	stopped := false
	stop := func() bool {
		if !stopped {
			var b [64]byte
			n, err := syscall.Read(stopFD, b[:])
			stopped = n == 0 && err == nil || err != nil && err != syscall.EAGAIN && err != syscall.EINTR
		}
		return stopped
	}

	checkMu.Lock()
	defer checkMu.Unlock()
	// One goroutine runs at a time, as in Check; the runner relies on it.
	runtime.GOMAXPROCS(1)
	if spec.TransitionTimeout > 0 {
		cfg.timeout = spec.TransitionTimeout
	}
	rt.HideRaces()
	// Every execution runs in this process: each starts from the
	// package-level variables as the first found them.
	rc := cfg.runtime(1, false)
	rc.Restore, rc.Vars = true, spec.Vars
	r, chk := rt.Start(f, rc)
	defer r.Stop()
	return targetsearch.Serve(chk, spec, stream, tr, targetsearch.Controls{Stopped: stop, Deadline: r.SetDeadline})
}
