// Package targetproc runs the processes of targets of any kind under
// stdbg: it starts a program as a fork server (a C or C++ program with
// stdbg's interposition library preloaded, package ctarget) or as a process
// per execution (a Go program, which brings its runtime, package sthread),
// drives its executions through the wire protocol (package wire) as an
// executor.Runtime, resets and reuses children between executions and keeps
// their threads parked, sends runs of steps in batches, and places the
// processes and the checker's threads on CPUs.
package targetproc

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stdbg/stdbg/internal/procgroup"
	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/internal/targettmp"
	"github.com/stdbg/stdbg/model/wire"
)

// sigStack is the signal the library answers with the running thread's
// stack (SIGRTMIN+6 with glibc's SIGRTMIN of 34).
const sigStack = 40

// Config describes how to run a target.
type Config struct {
	// Binary is the executable (dynamically linked).
	Binary string
	// Args are its arguments (without argv[0]).
	Args []string
	// Env is its environment; nil means stdbg's own.
	Env []string
	// Dir is its working directory; "" means the current one.
	Dir string
	// Wrap, if not empty, is a command that runs the target: the process
	// started is Wrap[0] with Wrap[1:], then Binary and Args. It must end
	// in an exec of the target, in the same process (prlimit, unshare -n,
	// setpriv: how a grader confines a student's program).
	Wrap []string
	// Stdout and Stderr receive the program's output; nil discards it.
	Stdout, Stderr io.Writer
	// Library is the interposition library to preload, required unless
	// NoPreload (ctarget.Library builds stdbg's C library, and
	// ctarget.Start preloads it).
	Library string
	// TransitionTimeout bounds each transition (default 5s).
	TransitionTimeout time.Duration
	// StartTimeout bounds the time to the first scheduling point
	// (default: 30s).
	StartTimeout time.Duration
	// Flags are wire.Flag* values applied to every execution.
	Flags uint32
	// Respawn runs every execution in a new process, for runtimes that
	// cannot fork (Go programs): the process greets, receives FORK and is
	// itself the execution. Without it the target is a fork server.
	Respawn bool
	// Lazy, with Respawn, starts no process in Start: the first
	// execution (or Launch) starts it. A caller that may never run an
	// execution here (a Go target that searches inside a process of its
	// own) then pays for no process it does not use. Pid and Modules are
	// zero until a process has greeted.
	Lazy bool
	// NoPreload starts the target without the interposition library (a
	// Go program brings its own runtime, package sthread).
	NoPreload bool
	// NoReuse forks a fresh child for every execution. By default, when
	// executions end fast (FlagFastExit) and without state reports, a child
	// of the C library is reset in place and serves the next execution
	// (wire.FlagReuse); $STDBG_REUSE=0 also turns that off.
	NoReuse bool
	// KeepThreads, for a search, keeps the program's threads parked in a
	// reused child of the C library between executions instead of
	// creating them in each (the thread pool, docs/protocol.md): the
	// checker first runs one probe execution to count them
	// (executor.Pooler). $STDBG_POOL=0 turns it off.
	KeepThreads bool
	// NoContexts makes the kept threads hand over through the kernel.
	// By default the main thread and the kept ones run as contexts
	// switched in user space on one kernel thread, where nothing in the
	// program can tell (docs/protocol.md, "Contexts"); $STDBG_CONTEXTS=0
	// also turns that off.
	NoContexts bool
}

// checkExecutable returns a clear error when path is not an executable
// file.
func checkExecutable(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	if st.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not executable", path)
	}
	return nil
}

// CheckBinary returns a clear error when path cannot be run under stdbg's
// interposition library: missing, not executable, not ELF, or statically
// linked.
func CheckBinary(path string) error {
	if err := checkExecutable(path); err != nil {
		return err
	}
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s is not an ELF executable: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return nil
		}
	}
	return fmt.Errorf("%s is statically linked: stdbg needs a dynamically linked program to preload its library", path)
}

// Process is a running target: the fork server and the child of the
// current execution. It implements executor.Runtime.
type Process struct {
	cfg Config
	// pool is the number of threads a reused child keeps parked for the
	// program (rt/pool.c), the same for every child: SetPool.
	pool   int
	cmd    *exec.Cmd
	ctl    *os.File
	mb     *wire.Mailbox
	hello  wire.Hello
	gen    uint32
	slot   *wire.Slot
	last   uint32
	ostids map[int]int
	alive  bool // the current child may still be running
	waitCh chan error
	quit   bool
	fresh  bool // Respawn: the process greeted and has not run an execution yet
	// greeted: a process has greeted (not yet, for a Lazy target before
	// its first execution).
	greeted bool

	// Reuse (wire.FlagReuse): flags are those of the current child;
	// parked says it was told to reset and will report the start of the
	// next execution.
	flags  uint32
	parked bool
	reused int64

	// batch: the steps of the current execution announced by Plan;
	// batched counts the steps run in batches.
	batch   batchState
	batched int64
	evbuf   []wire.Event // received's events
	dec     wire.Decoder // and their decoder

	// Placement (Pin): where the executions and the checker's thread run.
	place     Placement
	placed    bool
	pinnedTid int
	pinnedOld unix.CPUSet

	// deadline is when the phase under way ends (SetDeadline; zero:
	// never): a step still running then is cut.
	deadline time.Time

	// mbMu guards the mailbox's mapping against the death watchers of
	// Respawn mode, which may report after Close.
	mbMu     sync.Mutex
	mbClosed bool
}

// Start launches the target and waits for its greeting: from the fork
// server, or (Respawn) from the process of the first execution; with Lazy
// and Respawn it only checks the executable, and the first execution
// starts the process.
func Start(cfg Config) (*Process, error) {
	if cfg.TransitionTimeout <= 0 {
		cfg.TransitionTimeout = 5 * time.Second
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 30 * time.Second
	}
	if cfg.NoPreload {
		if err := checkExecutable(cfg.Binary); err != nil {
			return nil, err
		}
	} else if err := CheckBinary(cfg.Binary); err != nil {
		return nil, err
	} else if cfg.Library == "" {
		return nil, errors.New("no interposition library to preload: set Config.Library (ctarget.Start preloads stdbg's) or Config.NoPreload")
	}
	mb, err := wire.NewMailbox()
	if err != nil {
		return nil, err
	}
	p := &Process{cfg: cfg, mb: mb, ostids: make(map[int]int)}
	if cfg.Lazy && cfg.Respawn {
		return p, nil
	}
	if err := p.launch(); err != nil {
		mb.Close()
		return nil, err
	}
	return p, nil
}

// Launched reports whether a target process has been started and greeted
// (always, but for a Lazy process before its first execution or Launch).
func (p *Process) Launched() bool { return p.greeted }

// Launch starts the first process of a Lazy target, which the next
// execution then runs in; it does nothing once one was started.
func (p *Process) Launch() error {
	if p.greeted {
		return nil
	}
	return p.launch()
}

// launch starts a target process and reads its greeting.
func (p *Process) launch() error {
	cfg := p.cfg
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("creating control socket: %w", err)
	}
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return fmt.Errorf("creating control socket: %w", err)
	}
	ours := os.NewFile(uintptr(fds[0]), "stdbg-ctl")
	theirs := os.NewFile(uintptr(fds[1]), "stdbg-ctl-target")
	cmd := exec.Command(cfg.Binary, cfg.Args...)
	cmd.Dir = cfg.Dir
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	// A Go target's runtime reads the race detector's reports from a file
	// of its own, which goes once the process has ended; one that runs as
	// another user (Wrap) makes it where that user may.
	// What the program leaves in its temporary directory (a test's
	// t.TempDir when the execution is ended before its cleanups) goes
	// with the process.
	tmp := targettmp.New(len(cfg.Wrap) > 0)
	env = tmp.Env(env)
	if len(cfg.Wrap) > 0 {
		cmd.Env = rtnames.WithSharedRaceLog(targetEnv(env, cfg.Library))
		cmd = wrapped(cmd, cfg.Wrap)
	} else {
		cmd.Env = rtnames.WithRaceLog(targetEnv(env, cfg.Library))
	}
	if cfg.Flags&wire.FlagState != 0 {
		// Stateful search: the library tracks heap blocks from the start.
		cmd.Env = append(cmd.Env, "STDBG_STATE=1")
	}
	cmd.ExtraFiles = []*os.File{theirs, p.mb.File()}
	cmd.Stdin = nil
	// Output nobody reads goes to /dev/null, not through a pipe that
	// stdbg would copy and wait for every holder of to close.
	cmd.Stdout, cmd.Stderr = outputFile(cfg.Stdout), outputFile(cfg.Stderr)
	// A process the program started and left running (a daemon of its
	// own) may keep the output pipes open: Wait gives up on them then.
	cmd.WaitDelay = outputDelay
	procgroup.Lead(cmd)
	err = cmd.Start()
	// Only the target may hold its end: a target that dies before its
	// greeting must read as end of file here at once.
	theirs.Close()
	if err != nil {
		ours.Close()
		tmp.Remove()
		return fmt.Errorf("starting %s: %w", cfg.Binary, err)
	}
	p.cmd, p.ctl, p.waitCh, p.quit = cmd, ours, make(chan error, 1), false
	go func() {
		err := cmd.Wait()
		// The processes the program started and left behind (a test's
		// peers, a daemon) end with it: they are in its process group.
		procgroup.Kill(cmd.Process.Pid)
		if f := rtnames.RaceLogFile(cmd.Env, cmd.Process.Pid); f != "" {
			os.Remove(f)
		}
		tmp.Remove()
		p.waitCh <- err
	}()
	ours.SetReadDeadline(time.Now().Add(cfg.StartTimeout))
	buf, err := helloBuffer(ours)
	n := 0
	if err == nil {
		n, err = ours.Read(buf)
	}
	if err != nil {
		reason := p.startFailure(err)
		p.stopProcess()
		return reason
	}
	h, err := wire.DecodeHello(buf[:n])
	if err != nil {
		p.stopProcess()
		return fmt.Errorf("%s: bad greeting from the stdbg runtime: %w", cfg.Binary, err)
	}
	if h.Version != wire.Version {
		p.stopProcess()
		return fmt.Errorf("%s: the stdbg runtime speaks protocol %d, this stdbg speaks %d", cfg.Binary, h.Version, wire.Version)
	}
	p.hello = h
	p.fresh, p.greeted = true, true
	return nil
}

// helloBuffer waits for the greeting on ctl (within its read deadline)
// and returns a buffer that holds it whole: a greeting is one packet, its
// size read without taking it (MSG_PEEK|MSG_TRUNC). Most are a few hundred
// bytes; a buffer of the largest size (1 MB) for each was most of the heap
// of a short command.
func helloBuffer(ctl *os.File) ([]byte, error) {
	rc, err := ctl.SyscallConn()
	if err != nil {
		return nil, err
	}
	size := 0
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		size, _, rerr = unix.Recvfrom(int(fd), nil, unix.MSG_PEEK|unix.MSG_TRUNC)
		return rerr != unix.EAGAIN
	})
	if err == nil {
		err = rerr
	}
	if err != nil {
		return nil, err
	}
	// One byte more than the packet: a packet that fills the buffer
	// exactly is then known not to have been cut.
	return make([]byte, size+1), nil
}

// wrapped runs cmd through the command wrap, which execs it in the same
// process: the library is preloaded into the program only, not into the
// commands of wrap (env(1) sets LD_PRELOAD last).
func wrapped(cmd *exec.Cmd, wrap []string) *exec.Cmd {
	args := append([]string(nil), wrap[1:]...)
	var keep []string
	var preload string
	for _, kv := range cmd.Env {
		if strings.HasPrefix(kv, "LD_PRELOAD=") {
			preload = kv
			continue
		}
		keep = append(keep, kv)
	}
	if preload != "" {
		args = append(args, "env", preload)
	}
	w := exec.Command(wrap[0], append(append(args, cmd.Path), cmd.Args[1:]...)...)
	w.Dir, w.Env = cmd.Dir, keep
	return w
}

// outputDelay bounds how long, after the target process ended, stdbg
// copies output that processes it left behind still write.
const outputDelay = 2 * time.Second

// outputFile returns w as the target's output: nil (/dev/null) for
// io.Discard.
func outputFile(w io.Writer) io.Writer {
	if w == io.Discard {
		return nil
	}
	return w
}

// startFailure explains why no greeting came.
func (p *Process) startFailure(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%s did not reach its first thread operation within %s (is it waiting for input?)",
			p.cfg.Binary, p.cfg.StartTimeout)
	}
	select {
	case werr := <-p.waitCh:
		p.waitCh <- werr
		if p.cfg.NoPreload {
			return fmt.Errorf("%s ended (%s) without handing its goroutines to stdbg: the tests that -run selects must "+
				"call sthread.Check(t, f) (sthread.Explore searches on its own, inside the test), or use no sthread at "+
				"all (plain Go is instrumented); run it alone to see why",
				p.cfg.Binary, describeExit(p.cmd.ProcessState))
		}
		return fmt.Errorf("%s ended before its first thread operation (%s); run it alone to see why",
			p.cfg.Binary, describeExit(p.cmd.ProcessState))
	case <-time.After(2 * time.Second):
	}
	return fmt.Errorf("%s: no greeting from the stdbg library: %v", p.cfg.Binary, err)
}

func describeExit(ps *os.ProcessState) string {
	if ps == nil {
		return "unknown status"
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		return describeStatus(unix.WaitStatus(ws))
	}
	return ps.String()
}

func describeStatus(ws unix.WaitStatus) string {
	switch {
	case ws.Signaled():
		return fmt.Sprintf("killed by signal %d (%s)", int(ws.Signal()), unix.SignalName(ws.Signal()))
	case ws.Exited():
		return fmt.Sprintf("exited with status %d", ws.ExitStatus())
	}
	return fmt.Sprintf("ended with wait status %#x", uint32(ws))
}

// targetEnv adds the library (unless lib is "") and protocol variables to
// env, keeping a preload the user already had after stdbg's.
func targetEnv(env []string, lib string) []string {
	out := make([]string, 0, len(env)+4)
	var old string
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "LD_PRELOAD="):
			old = strings.TrimPrefix(kv, "LD_PRELOAD=")
			continue
		case strings.HasPrefix(kv, "STDBG_CTL="), strings.HasPrefix(kv, "STDBG_MAILBOX="),
			strings.HasPrefix(kv, "STDBG_CHECKER_PID="):
			continue
		}
		out = append(out, kv)
	}
	preload := strings.Trim(lib+":"+old, ":")
	if preload != "" {
		out = append(out, "LD_PRELOAD="+preload)
	}
	return append(out, "STDBG_CTL=3", "STDBG_MAILBOX=4", "STDBG_CHECKER_PID="+strconv.Itoa(os.Getpid()))
}

// Modules returns the target's loaded objects, for symbolization.
func (p *Process) Modules() []wire.Module { return p.hello.Modules }

// Pid returns the fork server's process id.
func (p *Process) Pid() int { return p.hello.Pid }

// ChildPid returns the process id of the current execution (0 if none).
func (p *Process) ChildPid() int {
	if p.slot == nil {
		return 0
	}
	return p.slot.Pid()
}

// Begin implements executor.Runtime.
func (p *Process) Begin() ([]wire.Event, error) {
	if p.alive {
		p.End(false)
	}
	p.batch.reset()
	if p.placed {
		p.pinCaller()
	}
	flags := p.nextFlags()
	pool := 0
	if flags&wire.FlagReuse != 0 {
		pool = p.pool
	}
	if p.parked {
		p.parked = false
		if flags == p.flags {
			if evs, ok := p.beginReused(); ok {
				return evs, nil
			}
		}
		p.killChild()
	}
	if p.cfg.Respawn && !p.fresh {
		// The previous execution's process must be gone before its slot
		// can serve again two generations later: wait for it now.
		p.stopProcess()
		if err := p.launch(); err != nil {
			return nil, err
		}
	}
	p.fresh = false
	p.flags = flags
	p.gen++
	p.slot = p.mb.Slot(p.gen)
	p.slot.Reset(p.gen, flags)
	p.slot.SetBounds(unixNano(p.deadline), p.cfg.TransitionTimeout)
	p.last = p.slot.UpSeq()
	p.ostids = make(map[int]int)
	if _, err := p.ctl.Write(wire.EncodeForkPool(p.gen, flags, uint32(pool))); err != nil {
		return nil, fmt.Errorf("asking %s for an execution: %w", p.cfg.Binary, p.serverGone(err))
	}
	if p.cfg.Respawn {
		// No fork server reports this process's death: watch it here.
		slot, gen, waitCh, cmd := p.slot, p.gen, p.waitCh, p.cmd
		go func() {
			err := <-waitCh
			waitCh <- err
			var ws unix.WaitStatus
			if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
				ws = unix.WaitStatus(st)
			}
			p.mbMu.Lock()
			if !p.mbClosed {
				slot.MarkDead(gen, ws)
			}
			p.mbMu.Unlock()
		}()
	}
	p.alive = true
	return p.collect(1, p.cfg.StartTimeout)
}

// serverGone explains a failure to talk to the fork server.
func (p *Process) serverGone(err error) error {
	select {
	case werr := <-p.waitCh:
		p.waitCh <- werr
		return fmt.Errorf("the program's fork server ended (%s)", describeExit(p.cmd.ProcessState))
	default:
	}
	return err
}

// Resume implements executor.Runtime.
func (p *Process) Resume(tid int, code int64) ([]wire.Event, error) {
	if !p.alive {
		return nil, errors.New("no execution is running")
	}
	if evs, ok, err := p.resumeBatched(tid, code); ok {
		return evs, err
	}
	var msg [24]byte
	if err := p.slot.Answer(wire.EncodeRun(msg[:0], wire.Run{Tid: tid, Code: code})); err != nil {
		return nil, err
	}
	return p.collect(tid, p.cfg.TransitionTimeout)
}

// SetDeadline sets when the phase under way (a search, a minimisation)
// ends; the zero time: never. A step still running then is cut: the
// execution ends with a TimedOut event marked Cut (the executor's
// search.ErrStepCut), or, from a Go program whose goroutine waits outside
// the model, with the failure that the checker cannot judge it, as its
// runtime tells. The runtime is told too (wire.Slot.SetBounds), from the
// next step on.
func (p *Process) SetDeadline(t time.Time) {
	p.deadline = t
	if p.slot != nil {
		p.slot.SetDeadline(unixNano(t))
	}
}

// stepBound is how long the checker waits for a step: timeout, or less
// when the deadline comes first (cut).
func (p *Process) stepBound(timeout time.Duration) (bound time.Duration, cut bool) {
	if !p.deadline.IsZero() {
		if left := time.Until(p.deadline); left < timeout {
			return max(left, 0), true
		}
	}
	return timeout, false
}

// waited is how long a wait for a step that began at since (zero: the
// wait never read the clock) and ended at its bound lasted.
func waited(since time.Time, bound time.Duration) time.Duration {
	if since.IsZero() {
		return bound
	}
	return time.Since(since)
}

// unixNano is t in Unix nanoseconds, 0 for the zero time.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// collect waits for the runtime's hand-over and decodes it: for at most
// timeout, and not past the deadline (SetDeadline).
func (p *Process) collect(running int, timeout time.Duration) ([]wire.Event, error) {
	var since time.Time // set by the first wait that needs the clock
	bound, cut := p.stepBound(timeout)
	for {
		if err := p.slot.WaitFor(p.last, &since, bound); err != nil {
			if errors.Is(err, wire.ErrTimeout) {
				return p.timedOut(running, waited(since, bound), cut)
			}
			return nil, err
		}
		p.last = p.slot.UpSeq()
		// The fork server also bumps the counter when it reaps an older
		// child that used this slot: without a message and without the
		// death of this generation, the wake-up was not for us.
		if len(p.slot.Up()) > 0 {
			break
		}
		if _, dead := p.slot.Dead(p.gen); dead {
			break
		}
	}
	return p.received(p.slot.Up())
}

// received decodes the messages of a hand-over (or of one step of a batch)
// and notes what they say about the child: its threads' kernel ids, a
// failure it does not survive, its death.
func (p *Process) received(buf []byte) ([]wire.Event, error) {
	// The events are the checker's until its next call: one slice and
	// one block of messages serve every hand-over.
	p.dec.Reuse()
	evs, err := p.dec.Append(p.evbuf[:0], buf)
	p.evbuf = evs
	if err != nil {
		return nil, fmt.Errorf("reading the program's report: %w", err)
	}
	return p.noted(evs), nil
}

// noted notes what decoded events say about the child (received) and
// returns them, with its death if it died.
func (p *Process) noted(evs []wire.Event) []wire.Event {
	for i, ev := range evs {
		if pe, ok := ev.(*wire.Pending); ok && pe.OSTid != 0 && p.ostids[pe.Tid] != pe.OSTid {
			p.ostids[pe.Tid] = pe.OSTid
		}
		if f, ok := ev.(wire.Failure); ok && (f.Kind == wire.FailTimedOut || f.Kind == wire.FailCut) {
			// The runtime ended the step at its bounds itself.
			evs[i] = wire.TimedOut{Tid: f.Tid, Frames: f.Frames, After: f.Message, Cut: f.Kind == wire.FailCut}
			p.alive = false
			p.killChild()
			continue
		}
		if f, ok := ev.(wire.Failure); ok && !p.waitsAfter(f) {
			p.alive = false
			p.killChild()
		}
	}
	if ws, dead := p.slot.Dead(p.gen); dead {
		p.alive = false
		failed := false
		for _, ev := range evs {
			if _, ok := ev.(wire.Failure); ok {
				failed = true
			}
		}
		if !failed {
			d := wire.Died{Description: describeStatus(ws)}
			if ws.Signaled() {
				d.Signal = int(ws.Signal())
			}
			evs = append(evs, d)
		}
	}
	return evs
}

// ownReport is how long the checker waits, after a step outlasted its
// bounds, for the report of a runtime that keeps them itself (Go's, whose
// watchdog looks every 20 ms): it says where the goroutine waits.
const ownReport = time.Second

// timedOut ends the execution whose step by thread tid outlasted its
// bounds: the timeout, or the deadline when cut. A Go runtime keeps the
// same bounds and says why its step did not end (it may be a goroutine
// waiting on something stdbg does not schedule, which no timeout
// describes): its report is awaited a moment. The C library is asked
// where the running thread is.
func (p *Process) timedOut(tid int, waited time.Duration, cut bool) ([]wire.Event, error) {
	ev := wire.TimedOut{Tid: tid, After: waited.Round(time.Millisecond).String(), Cut: cut}
	if ws, dead := p.slot.Dead(p.gen); dead {
		p.alive = false
		return []wire.Event{wire.Died{Description: describeStatus(ws)}}, nil
	}
	if p.cfg.NoPreload {
		if p.slot.Wait(p.last, time.Now().Add(ownReport)) == nil {
			p.last = p.slot.UpSeq()
			// Its report, or a step that ended after all (the
			// execution then goes on).
			return p.received(p.slot.Up())
		}
		p.killChild()
		p.alive = false
		return []wire.Event{ev}, nil
	}
	pid := p.slot.Pid()
	if os := p.ostids[tid]; os != 0 && pid != 0 {
		if unix.Tgkill(pid, os, unix.Signal(sigStack)) == nil {
			if p.slot.Wait(p.last, time.Now().Add(time.Second)) == nil {
				p.last = p.slot.UpSeq()
				evs, _ := wire.Decode(p.slot.Up())
				for _, e := range evs {
					if st, ok := e.(wire.Stack); ok && st.Tid == tid {
						ev.Frames = st.Frames
					}
				}
			}
		}
	}
	p.killChild()
	p.alive = false
	return []wire.Event{ev}, nil
}

func (p *Process) killChild() {
	if p.cfg.Respawn && p.cmd != nil && p.cmd.Process != nil {
		// The execution's process leads its group: what it started goes
		// with it.
		procgroup.Kill(p.cmd.Process.Pid)
		return
	}
	if p.slot == nil {
		return
	}
	if pid := p.slot.Pid(); pid > 0 {
		unix.Kill(pid, unix.SIGKILL)
	}
}

// End implements executor.Runtime. A clean end lets the program leave on
// its own (its output is flushed, atexit handlers run), within the
// transition timeout; otherwise the child is killed.
func (p *Process) End(clean bool) {
	p.drain()
	if !p.alive {
		return
	}
	p.alive = false
	if p.flags&wire.FlagReuse != 0 && p.slot.Pid() > 0 {
		// The child waits for an answer: tell it to reset itself. (A
		// clean end need not let the program leave on its own: reuse
		// is only for executions that end fast.)
		if _, dead := p.slot.Dead(p.gen); !dead {
			var msg [8]byte
			if p.slot.Answer(wire.EncodeReset(msg[:0])) == nil {
				p.parked = true
				return
			}
		}
	}
	if clean && p.slot.Pid() > 0 {
		if _, dead := p.slot.Dead(p.gen); dead {
			return
		}
		var msg [24]byte
		if p.slot.Answer(wire.EncodeRun(msg[:0], wire.Run{Tid: 0})) == nil {
			deadline := time.Now().Add(p.cfg.TransitionTimeout)
			if !p.deadline.IsZero() && p.deadline.Before(deadline) {
				deadline = p.deadline // the phase's end comes first
			}
			for time.Now().Before(deadline) {
				if _, dead := p.slot.Dead(p.gen); dead {
					return
				}
				if p.slot.Wait(p.last, deadline) != nil {
					break
				}
				p.last = p.slot.UpSeq()
			}
		}
	}
	p.killChild()
}

// WaitExit waits until the current child is reaped and returns its
// status description; used by replay to let a program finish.
func (p *Process) WaitExit(timeout time.Duration) (string, bool) {
	deadline := time.Now().Add(timeout)
	for {
		if ws, dead := p.slot.Dead(p.gen); dead {
			return describeStatus(ws), true
		}
		if p.slot.Wait(p.last, deadline) != nil {
			return "", false
		}
		p.last = p.slot.UpSeq()
	}
}

// Close ends the current execution and the target.
func (p *Process) Close() error {
	if p.quit && p.cmd == nil {
		return nil
	}
	if p.alive {
		p.End(false)
	}
	if p.parked && p.cfg.Respawn {
		// A Go program between two executions waits on the mailbox,
		// not on the control socket: it would not see QUIT.
		p.parked = false
		p.killChild()
	}
	p.Unpin()
	err := p.stopProcess()
	p.mbMu.Lock()
	p.mbClosed = true
	p.mb.Close()
	p.mbMu.Unlock()
	return err
}

// stopProcess asks the target process to quit, kills it if it does not
// within 5 seconds, and waits for it (the processes left in its group are
// killed once it is reaped).
func (p *Process) stopProcess() error {
	if p.cmd == nil || p.quit {
		return nil
	}
	p.quit = true
	p.ctl.Write(wire.EncodeQuit())
	p.ctl.Close()
	var err error
	select {
	case err = <-p.waitCh:
	case <-time.After(5 * time.Second):
		if p.cmd.Process != nil {
			procgroup.Kill(p.cmd.Process.Pid)
		}
		err = <-p.waitCh
	}
	p.waitCh <- err
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil // the target's own status carries no news
	}
	return err
}

// SetFlags changes the wire.Flag* values used from the next execution on.
func (p *Process) SetFlags(flags uint32) { p.cfg.Flags = flags }

// Flags returns the wire.Flag* values of the next execution.
func (p *Process) Flags() uint32 { return p.cfg.Flags }
