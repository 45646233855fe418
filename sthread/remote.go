package sthread

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Remote mode. Under `stdbg find` a Go program runs one execution per
// process, driven by the stdbg checker in another process through the wire
// protocol, exactly like a C target: the same checker, model, search and
// reports. The process greets the checker, receives FORK, and then pumps:
// it hands the checker the events of each transition and runs the thread
// the checker names, with the in-process runtime (runner) doing the work.

// Run runs f as a checked program. Under stdbg find it runs one execution
// of f under the stdbg checker and then ends the process. With ReplayEnv
// set it runs that schedule of f in process, writes the trace to standard
// error and ends the process: with status 1 if the execution ends in a
// bug, 2 if the schedule does not fit, 0 otherwise; stdbg replay --dlv
// runs programs that way under Delve. Otherwise it just calls f. Wrap a
// program's main in it:
//
//	func main() { sthread.Run(realMain) }
//
//go:norace
func Run(f func()) {
	if rt.Searching() {
		os.Exit(serveSearchOrDie(f, newConfig(nil)))
	}
	if rt.Remote() {
		os.Exit(runRemoteOrDie(f, newConfig(nil)))
	}
	if s, ok := os.LookupEnv(ReplayEnv); ok {
		// The race detector sees the program as the search saw it
		// (rt.HideRaces).
		rt.HideRaces()
		os.Exit(replayProgram(s, f, os.Stderr))
	}
	f()
}

// replayProgram runs schedule sched of the program f in process, writes
// its trace to w and returns the exit status for the process.
func replayProgram(sched string, f func(), w io.Writer) int {
	rr, err := runOnce(sched, f, newConfig(nil), true)
	if err != nil {
		fmt.Fprintf(w, "sthread: replaying %q: %v\n", sched, err)
		return 2
	}
	rr.rep.WriteText(w)
	if rr.bug != nil {
		return 1
	}
	return 0
}

// runRemoteOrDie runs one remote execution and returns the exit status for
// the process.
//
//go:norace
func runRemoteOrDie(f func(), cfg *config) int {
	if err := runRemote(f, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "sthread:", err)
		return 70
	}
	return 0
}

//go:norace
func envFD(name string) (int, error) {
	v := os.Getenv(name)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 0 {
		return 0, fmt.Errorf("%s=%q is not a file descriptor", name, v)
	}
	return fd, nil
}

// runRemote greets the checker, waits for FORK and pumps one execution.
//
//go:norace
func runRemote(f func(), cfg *config) error {
	link, err := connect()
	if err != nil || link == nil {
		return err
	}
	// One goroutine runs at a time, as in Check; the runner relies on it.
	runtime.GOMAXPROCS(1)
	// The checker's bounds of a step: its transition timeout, and the
	// deadline of the phase under way (a search, a minimisation), read
	// again before each step. The runner cuts a step at them itself, to
	// say why it did not end (a goroutine waiting outside the model);
	// the checker keeps them too. (From a checker that does not say its
	// timeout, the local watchdog only backs it up.)
	cfg.timeout = time.Hour
	if _, timeout := link.slot.Bounds(); timeout > 0 {
		cfg.timeout = timeout
	}
	depth := 1
	if link.flags&wire.FlagStacks != 0 {
		depth = rt.FramesCap
	}
	rt.HideRaces()
	rc := cfg.runtime(depth, link.flags&wire.FlagState != 0)
	rc.Once = link.flags&wire.FlagReuse == 0 // else reset for the next (pump)
	r, _ := rt.Start(f, rc)
	defer r.Stop()
	return link.pump(r)
}

// checkerLink is this process's channel to the checker of stdbg find:
// the mailbox slot it exchanges messages through, the flags of the FORK
// it received, and the checker's process id.
type checkerLink struct {
	slot       *wire.Slot
	flags      uint32
	checkerPid int
}

// connect takes the channels stdbg find handed the process (their
// environment variables are removed), greets the checker with the
// executable's mapping and waits for FORK. It returns nil if the checker
// said QUIT instead.
//
//go:norace
func connect() (*checkerLink, error) {
	ctlFD, err := envFD(rt.EnvCtl)
	if err != nil {
		return nil, err
	}
	mbFD, err := envFD(rt.EnvMailbox)
	if err != nil {
		return nil, err
	}
	checkerPid, _ := strconv.Atoi(os.Getenv(rt.EnvChecker))
	for _, k := range []string{rt.EnvCtl, rt.EnvMailbox, rt.EnvChecker} {
		os.Unsetenv(k)
	}
	ctl := os.NewFile(uintptr(ctlFD), "stdbg-ctl")
	mb, err := wire.OpenMailbox(mbFD)
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the executable: %w", err)
	}
	hello := wire.Hello{Version: wire.Version, Pid: os.Getpid(), Modules: selfModules(exe)}
	if _, err := ctl.Write(wire.EncodeHello(hello)); err != nil {
		return nil, fmt.Errorf("greeting the checker: %w", err)
	}
	buf := make([]byte, 64)
	n, err := ctl.Read(buf)
	if err != nil {
		return nil, fmt.Errorf("waiting for the checker: %w", err)
	}
	if wire.IsQuit(buf[:n]) {
		return nil, nil
	}
	gen, flags, err := wire.DecodeFork(buf[:n])
	if err != nil {
		return nil, err
	}
	slot := mb.Slot(gen)
	slot.SetPid(os.Getpid())
	return &checkerLink{slot: slot, flags: flags, checkerPid: checkerPid}, nil
}

// pump runs executions of r for the checker: it hands the checker the
// events of each transition and runs the thread the checker names. With
// FlagReuse the process serves execution after execution: the checker ends
// each one with RESET (after a failure too), and the runner starts the
// checked function afresh, as Explore does in process.
//
//go:norace
func (l *checkerLink) pump(r *rt.Runner) error {
	bound := func() {
		deadline, _ := l.slot.Bounds()
		r.SetDeadline(deadline)
	}
	bound()
	evs, err := r.Begin()
	if err != nil {
		return err
	}
	reuse := l.flags&wire.FlagReuse != 0
	for {
		msg, over, err := encodeEvents(evs)
		if err != nil {
			return err
		}
		last := l.slot.DownSeq()
		if err := l.slot.Send(msg); err != nil {
			return err
		}
		if over && !reuse {
			return nil
		}
		answer, err := waitChecker(l.slot, last, l.checkerPid)
		if err != nil {
			return err
		}
		bound()
		if reuse && wire.IsReset(answer) {
			r.End(false)
			if evs, err = r.Begin(); err != nil {
				return err
			}
			continue
		}
		if over {
			return nil
		}
		run, err := wire.DecodeRun(answer)
		if err != nil {
			return err
		}
		if run.Tid == 0 {
			return nil
		}
		if evs, err = r.Resume(run.Tid, run.Code); err != nil {
			return err
		}
	}
}

// waitChecker waits for the checker's answer, giving up when the checker
// is gone.
//
//go:norace
func waitChecker(slot *wire.Slot, last uint32, checkerPid int) ([]byte, error) {
	for {
		b, err := slot.WaitDown(last, time.Now().Add(time.Second))
		if err == nil {
			return b, nil
		}
		if !errors.Is(err, wire.ErrTimeout) {
			return nil, err
		}
		if checkerPid > 0 && syscall.Kill(checkerPid, 0) == syscall.ESRCH {
			return nil, errors.New("the stdbg checker is gone")
		}
	}
}

// encodeEvents turns the runner's events into wire messages; over reports
// an event after which the execution cannot go on.
//
//go:norace
func encodeEvents(evs []wire.Event) (msg []byte, over bool, err error) {
	for _, ev := range evs {
		switch v := ev.(type) {
		case wire.Pending:
			msg = wire.EncodePending(msg, v)
		case wire.Failure:
			msg = wire.EncodeFailure(msg, v)
			over = true
		case wire.Done:
			msg = wire.EncodeDone(msg, v)
		case wire.State:
			msg = wire.EncodeState(msg, v)
		case wire.Note:
			msg = wire.EncodeNote(msg, v)
		case wire.TimedOut:
			// The checker takes it as it takes its own timeouts and cuts.
			kind := wire.FailTimedOut
			if v.Cut {
				kind = wire.FailCut
			}
			msg = wire.EncodeFailure(msg, wire.Failure{Tid: v.Tid, Kind: kind, Frames: v.Frames, Message: v.After})
			over = true
		default:
			return nil, false, fmt.Errorf("cannot send event %T to the checker", ev)
		}
	}
	if len(msg) == 0 {
		// Every hand-over carries a message (see docs/protocol.md).
		msg = wire.EncodeDone(msg, wire.Done{Tid: 0})
	}
	return msg, over, nil
}

// selfModules describes the executable's mapping for symbolization.
//
//go:norace
func selfModules(exe string) []wire.Module {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil
	}
	var lo, hi uint64
	for _, line := range strings.Split(string(maps), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 6 || fields[5] != exe {
			continue
		}
		a, b, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(a, 16, 64)
		end, err2 := strconv.ParseUint(b, 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		if lo == 0 || start < lo {
			lo = start
		}
		if end > hi {
			hi = end
		}
	}
	if hi == 0 {
		return nil
	}
	var bias uint64
	if f, err := elf.Open(exe); err == nil {
		if f.Type == elf.ET_DYN {
			first := ^uint64(0)
			for _, p := range f.Progs {
				if p.Type == elf.PT_LOAD && p.Vaddr < first {
					first = p.Vaddr &^ 0xfff
				}
			}
			if first != ^uint64(0) {
				bias = lo - first
			}
		}
		f.Close()
	}
	return []wire.Module{{Bias: bias, Start: lo, End: hi, Path: exe}}
}
