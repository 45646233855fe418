package targetsearch

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/procgroup"
	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/internal/targettmp"
)

// The answers stdbg writes, one byte each, to a process that searches
// several tests in turn, after it named the test that begins.
const (
	// AnswerSearch: search the test now (its messages follow, up to
	// its Result).
	AnswerSearch = 'r'
	// AnswerSkip: let the test return at once, unsearched.
	AnswerSkip = 's'
)

// A Batch is a process of a Go test binary that searches several of its
// tests in turn, as go test runs a package's tests in one process: the
// binary runs the tests its -test.run selects, in order; as each begins
// (its sthread.Check), the process names it on the stream (Message.Test)
// and waits for an answer: search it (Search), or let it return
// unsearched (Skip). After each search the process puts the program's
// package-level variables back as they were when that search began
// (rt.Runner.PutBack), so that the next test starts from what a fresh
// process starts it from, as far as those variables go; a process that
// cannot ends. A test whose search was not clean (a bug, a failure, state
// not put back) is better searched again in a process of its own, and
// the Batch that searched it ended (Close): what it left in the process
// is not known.
//
// A Batch keeps no trace of its executions: a process that dies during a
// search loses that search (Search fails), which is then run as Run runs
// it, in processes of its own.
type Batch struct {
	cmd     *exec.Cmd
	stream  *bufio.Scanner
	answers *os.File // stdbg's answers (write end)
	stop    *os.File // closed to stop the process (write end)
	exited  chan struct{}
	stderr  *tailBuffer
	raceLog string
	started time.Time     // when the process was started (describe)
	grace   time.Duration // (Config.Grace)
	tmp     *targettmp.Dir
	closing sync.Once
}

// StartBatch starts a process of cfg's binary (Binary, Args, Env, Dir,
// Wrap, Grace) that searches the tests of its -test.run in turn with
// cfg.Spec, which gives each test's search its own budget.
func StartBatch(cfg Config) (*Batch, error) {
	js, err := json.Marshal(cfg.Spec)
	if err != nil {
		return nil, err
	}
	streamR, streamW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stopR, stopW, err := os.Pipe()
	if err != nil {
		streamR.Close()
		streamW.Close()
		return nil, err
	}
	ansR, ansW, err := os.Pipe()
	if err != nil {
		streamR.Close()
		streamW.Close()
		stopR.Close()
		stopW.Close()
		return nil, err
	}
	cmd, tmp := targetCommand(&cfg, SpecEnv+"="+string(js), StreamEnv+"=3", StopEnv+"=4", BatchEnv+"=5")
	cmd.ExtraFiles = []*os.File{streamW, stopR, ansR}
	b := &Batch{cmd: cmd, answers: ansW, stop: stopW, exited: make(chan struct{}), stderr: &tailBuffer{max: 4096},
		grace: cfg.Grace, tmp: tmp}
	if b.grace == 0 {
		b.grace = 10 * time.Second
	}
	cmd.Stdout, cmd.Stderr = io.Discard, b.stderr
	b.started = time.Now()
	err = cmd.Start()
	streamW.Close()
	stopR.Close()
	ansR.Close()
	if err != nil {
		streamR.Close()
		stopW.Close()
		ansW.Close()
		tmp.Remove()
		return nil, fmt.Errorf("starting %s: %w", cfg.Binary, err)
	}
	b.raceLog = rtnames.RaceLogFile(cmd.Env, cmd.Process.Pid)
	go func() {
		cmd.Wait()
		// The processes the program started and left running end with
		// it (its process group, as Run's).
		procgroup.Kill(cmd.Process.Pid)
		streamR.Close()
		close(b.exited)
	}()
	b.stream = bufio.NewScanner(streamR)
	b.stream.Buffer(make([]byte, 64<<10), maxLine)
	return b, nil
}

// errEnded is the error of a Batch whose process ended.
var errEnded = errors.New("the process ended")

// read returns the next message of the stream (errEnded at its end).
func (b *Batch) read() (Message, error) {
	var m Message
	if !b.stream.Scan() {
		return m, errEnded
	}
	if err := json.Unmarshal(b.stream.Bytes(), &m); err != nil {
		return m, fmt.Errorf("reading the target's search: %w", err)
	}
	return m, nil
}

// Next waits for the process to name the test that begins; it fails when
// the process ended (its tests all run, or it died).
func (b *Batch) Next() (string, error) {
	for {
		m, err := b.read()
		if err != nil {
			return "", err
		}
		if m.Test != "" {
			return m.Test, nil
		}
	}
}

// Skip lets the test named by Next return unsearched.
func (b *Batch) Skip() error {
	_, err := b.answers.Write([]byte{AnswerSkip})
	return err
}

// Search has the test named by Next searched and returns its result;
// progress, if not nil, receives the search's statistics as they come.
// A process that goes on past the end of its search's budget by more than
// the grace period is killed. Search fails when the process ended before
// the result.
func (b *Batch) Search(progress func(search.Stats)) (*Result, error) {
	if _, err := b.answers.Write([]byte{AnswerSearch}); err != nil {
		return nil, fmt.Errorf("%w (%s)", errEnded, err)
	}
	var over *time.Timer
	defer func() {
		if over != nil {
			over.Stop()
		}
	}()
	for {
		m, err := b.read()
		if err != nil {
			return nil, err
		}
		switch {
		case m.Result != nil:
			return m.Result, nil
		case m.Began != nil && over == nil:
			until := max(m.Began.SearchUntil, m.Began.MinimiseUntil)
			over = time.AfterFunc(time.Until(time.Unix(0, until))+b.grace, b.kill)
		case m.Progress != nil && progress != nil:
			progress(*m.Progress)
		}
	}
}

// Ended says how the process ended ("exit status 3"), with the last line
// of its standard error, once it ended.
func (b *Batch) Ended() string {
	select {
	case <-b.exited:
		return b.stderr.describe(b.cmd.ProcessState, b.raceLog, b.started)
	default:
		return "running"
	}
}

func (b *Batch) kill() { procgroup.Kill(b.cmd.Process.Pid) }

// Close ends the process (killed: what it would still do is not wanted)
// and waits for its end.
func (b *Batch) Close() {
	b.closing.Do(func() {
		b.kill()
		<-b.exited
		b.stop.Close()
		b.answers.Close()
		os.Remove(b.raceLog)
		b.tmp.Remove()
	})
}

// Clean reports whether a result may stand for the test's search: no bug,
// no failure of the search, nothing kept that the process could not put
// back, not stopped. Any other is searched again in processes of its own.
func (r *Result) Clean() bool {
	return len(r.Bugs) == 0 && r.Error == "" && !r.Nondeterministic && !r.CannotJudge && r.KeptState == "" && !r.Stopped
}

// Found converts a clean result of a Batch as Run returns it.
func (r *Result) Found() (*Found, error) {
	return (&merger{}).found(r, nil)
}
