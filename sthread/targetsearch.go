package sthread

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
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
	ch, err := takeChannels()
	if err != nil {
		return err
	}
	if ch.trace != nil {
		defer ch.trace.Close()
	}
	_, err = serveOne(f, cfg, ch)
	return err
}

// channels are what stdbg hands a process that searches: the spec, the
// stream, the stop and the trace.
type channels struct {
	spec   *targetsearch.Spec
	stream *os.File
	trace  *targetsearch.Trace // nil: none
	stop   func() bool
	// answers are stdbg's answers in a process that searches several
	// tests in turn (targetsearch.BatchEnv); nil otherwise.
	answers *os.File
}

// takeChannels reads the search's settings from the environment and
// removes them from it: the program's own child processes must not take
// themselves for searching targets.
//
//go:norace
func takeChannels() (*channels, error) {
	spec, _, err := targetsearch.Requested()
	if err != nil {
		return nil, err
	}
	streamFD, err := envFD(targetsearch.StreamEnv)
	if err != nil {
		return nil, err
	}
	stopFD, err := envFD(targetsearch.StopEnv)
	if err != nil {
		return nil, err
	}
	traceFD, batchFD := -1, -1
	if os.Getenv(targetsearch.TraceEnv) != "" {
		if traceFD, err = envFD(targetsearch.TraceEnv); err != nil {
			return nil, err
		}
	}
	if os.Getenv(targetsearch.BatchEnv) != "" {
		if batchFD, err = envFD(targetsearch.BatchEnv); err != nil {
			return nil, err
		}
	}
	for _, k := range []string{targetsearch.SpecEnv, targetsearch.StreamEnv, targetsearch.StopEnv, targetsearch.TraceEnv, targetsearch.BatchEnv} {
		os.Unsetenv(k)
	}
	ch := &channels{spec: spec, stream: os.NewFile(uintptr(streamFD), "stdbg-stream")}
	if batchFD >= 0 {
		ch.answers = os.NewFile(uintptr(batchFD), "stdbg-answers")
	}
	if traceFD >= 0 {
		f := os.NewFile(uintptr(traceFD), "stdbg-trace")
		ch.trace, err = targetsearch.MapTrace(f)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	// stdbg closes its end of the stop pipe to stop the search, and so
	// does its death. The search polls it (targetsearch.Serve starts no
	// goroutine).
	if err := syscall.SetNonblock(stopFD, true); err != nil {
		return nil, fmt.Errorf("the stop pipe: %w", err)
	}
	stopped := false
	ch.stop = func() bool {
		if !stopped {
			var b [64]byte
			n, err := syscall.Read(stopFD, b[:])
			stopped = n == 0 && err == nil || err != nil && err != syscall.EAGAIN && err != syscall.EINTR
		}
		return stopped
	}
	return ch, nil
}

// serveOne runs the search of ch.spec on f and writes its stream. It
// returns the runner's error putting the package-level variables back
// after the search (rt.Runner.PutBack) separately: the search itself is
// complete then.
//
//go:norace
func serveOne(f func(), cfg *config, ch *channels) (putBack error, err error) {
	spec := ch.spec
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
	err = targetsearch.Serve(chk, spec, ch.stream, ch.trace, targetsearch.Controls{Stopped: ch.stop, Deadline: r.SetDeadline})
	if err == nil && ch.answers != nil {
		putBack = r.PutBack()
	}
	return putBack, err
}

// The process's search of several tests in turn (targetsearch.Batch),
// set up by the first test that begins.
var (
	batchOnce sync.Once
	batchCh   *channels
	batchErr  error
)

// inBatch reports whether stdbg started this process to search several
// tests in turn.
//
//go:norace
func inBatch() bool {
	batchOnce.Do(func() {
		if os.Getenv(targetsearch.BatchEnv) == "" {
			return
		}
		batchCh, batchErr = takeChannels()
		rt.SearchingTests()
	})
	return batchCh != nil || batchErr != nil
}

// serveInBatch searches f, the check of test name, if stdbg answers that
// it is to be searched, and returns when the test may go on (it returns
// unsearched otherwise). A process whose channels fail, or that could not
// put the package-level variables back after a search, ends: stdbg
// searches what is left in other processes.
//
//go:norace
func serveInBatch(name string, f func(), cfg *config) {
	if batchErr != nil {
		fmt.Fprintln(os.Stderr, "sthread:", batchErr)
		os.Exit(70)
	}
	ch := batchCh
	b, err := json.Marshal(targetsearch.Message{Test: name})
	if err == nil {
		_, err = ch.stream.Write(append(b, '\n'))
	}
	var answer [1]byte
	if err == nil {
		_, err = io.ReadFull(ch.answers, answer[:])
	}
	if err != nil {
		// stdbg ended this process's part (or died).
		os.Exit(0)
	}
	if answer[0] != targetsearch.AnswerSearch {
		return
	}
	putBack, err := serveOne(f, cfg, ch)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sthread:", err)
		os.Exit(70)
	}
	if putBack != nil {
		fmt.Fprintln(os.Stderr, "sthread: after the search of", name+":", putBack)
		os.Exit(0)
	}
}
