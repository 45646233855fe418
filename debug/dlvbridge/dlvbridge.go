// Package dlvbridge drives Delve over its JSON-RPC API (version 2) to
// follow the replay of a schedule of a Go target one thread step at a time.
//
// The target replays the schedule in process (package sthread, with
// rtnames.ReplayEnv set) and calls sthread's step hook before every step.
// A Bridge starts Delve headless on the target, breaks on the hook, and at
// each stop reads the replay state sthread publishes (the step, the thread
// that runs next and the goroutine of every thread, since goroutine ids
// change from run to run), selects the goroutine of that thread and finds
// its user-code frame: the source line of the operation about to run.
// HandOver then leaves the process stopped there for an interactive
// client (dlv connect).
package dlvbridge

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/stdbg/stdbg/internal/rtnames"
)

// Module is the Delve module, and Version the version this package is
// built against (the one go.mod pins): the version Build builds.
const (
	Module  = "github.com/go-delve/delve"
	Version = "v1.27.2"
)

// ErrNotFound says that no Delve executable was found.
var ErrNotFound = errors.New("dlv not found")

// Find returns a Delve executable: $STDBG_DLV if set, else dlv on PATH,
// else the one Build left in cacheDir.
func Find(cacheDir string) (string, error) {
	if v := strings.TrimSpace(os.Getenv("STDBG_DLV")); v != "" {
		p, err := exec.LookPath(v)
		if err != nil {
			return "", fmt.Errorf("STDBG_DLV=%s: %w", v, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("dlv"); err == nil {
		return p, nil
	}
	p := builtPath(cacheDir)
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		return p, nil
	}
	return "", fmt.Errorf("%w on PATH nor in %s", ErrNotFound, filepath.Dir(p))
}

// builtPath is where Build puts dlv.
func builtPath(cacheDir string) string {
	return filepath.Join(cacheDir, "dlv-"+Version, "dlv")
}

// Build builds dlv at Version with the go command (go install
// Module/cmd/dlv@Version, through the module proxy) into cacheDir and
// returns its path. It gives up when ctx is done.
func Build(ctx context.Context, cacheDir string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("building dlv %s: the go command is not on PATH", Version)
	}
	dest := builtPath(cacheDir)
	tmp, err := os.MkdirTemp(cacheDir, "dlv-build-")
	if err != nil {
		return "", fmt.Errorf("building dlv %s: %w", Version, err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, goBin, "install", Module+"/cmd/dlv@"+Version)
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOFLAGS=")
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building dlv %s: go install: %v\n%s", Version, err, strings.TrimSpace(string(out)))
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", fmt.Errorf("building dlv %s: %w", Version, err)
	}
	if err := os.Rename(filepath.Join(tmp, "dlv"), dest); err != nil {
		return "", fmt.Errorf("building dlv %s: %w", Version, err)
	}
	return dest, nil
}

// Config says what to debug and how.
type Config struct {
	// Dlv is the Delve executable.
	Dlv string
	// Program is the target executable, built with optimisations off
	// (-gcflags=all=-N -l); Args are its arguments.
	Program string
	Args    []string
	// Schedule is the schedule to replay (rtnames.ReplayEnv).
	Schedule string
	// Env is added to stdbg's environment for Delve and the target.
	Env []string
	// Dir is the target's working directory ("" for the current one).
	Dir string
	// Stdout and Stderr receive the output of the target and of Delve
	// (nil: discarded).
	Stdout, Stderr io.Writer
	// Timeout bounds Delve's start and each step (default 1 minute).
	Timeout time.Duration
	// Listen is where Delve listens: a loopback host:port ("" for
	// 127.0.0.1 and a free port), or unix:PATH for a Unix socket that
	// only the user can connect to (mode 0600; PATH must not exist).
	Listen string
}

// CheckListen reports why addr cannot be a Listen address: Delve serves
// whoever connects, so it listens on loopback or on a private Unix socket
// only.
func CheckListen(addr string) error {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		if path == "" {
			return errors.New("unix: needs a path, e.g. unix:/tmp/stdbg-dlv.sock")
		}
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s exists: Delve would not listen there", path)
		}
		if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
			return fmt.Errorf("the directory of %s does not exist", path)
		}
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is neither host:port nor unix:PATH", addr)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%s is not a loopback address: Delve serves whoever connects, so it listens on loopback (127.0.0.1, ::1) or a Unix socket only", host)
	}
	return nil
}

// Bridge is a Delve server running the target, and the client that drives
// it.
type Bridge struct {
	// Addr is the address Delve listens at (host:port, or unix:PATH).
	Addr string
	sock string // the path of the Unix socket, if Delve listens on one

	cfg    Config
	cmd    *exec.Cmd
	client *Client
	before map[int]bool // ports of the connections at the hand-over (WaitClient)
	// accepted counts the connections Delve accepted (Unix sockets
	// only: its log says so); acceptedBefore, those before the hand-over.
	accepted, acceptedBefore atomic.Int64
	exited                   chan struct{} // closed when Delve has ended
	waitErr                  error
	bp                       *Breakpoint
	pid                      int
	exit                     *Exit
	once                     sync.Once
}

// Exit is how the target ended.
type Exit struct {
	Status int
}

// Stop is one stop of the replay at sthread's step hook.
type Stop struct {
	// Step is the step about to run (from 1) and Steps the length of
	// the schedule; once the execution is over (Over), Step is the
	// number of steps run.
	Step, Steps int
	// Thread is the stdbg thread that runs the step and Goroutine its
	// goroutine, which the bridge selected in Delve.
	Thread    int
	Goroutine int64
	// Over is set at the stop after the last step; Outcome then says how
	// the execution ended ("" for a clean end).
	Over    bool
	Outcome string
	// Goroutines maps each thread (index + 1) to its goroutine.
	Goroutines []int64
	// Func, File and Line are the user-code frame of Goroutine: where
	// the thread calls its pending operation (for a goroutine about to
	// return, the start of its function). Frame is its index in the
	// goroutine's stack, -1 when no frame of the stack is the user's.
	Func  string
	File  string
	Line  int
	Frame int
	// Breakpoint is set when Run stopped at another breakpoint than
	// the step hook: the id of one a client set through Client, or of
	// one of Delve's own (negative: an unrecovered panic, a fatal
	// error), named BreakpointName. Goroutine is then the goroutine
	// that hit it, Thread its stdbg thread (0 for a goroutine outside
	// the check), Func, File and Line where it stopped (Frame 0), and
	// Step the step under way.
	Breakpoint     int
	BreakpointName string
}

// Start starts Delve headless on the target, on a loopback port, connects
// to it and sets the breakpoint on sthread's step hook. The target is
// stopped at its start.
func Start(cfg Config) (*Bridge, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Minute
	}
	if cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	logR, logW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting dlv: %w", err)
	}
	listen := cfg.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	if err := CheckListen(listen); err != nil {
		logR.Close()
		logW.Close()
		return nil, fmt.Errorf("dlv --listen: %w", err)
	}
	sock, unixSock := strings.CutPrefix(listen, "unix:")
	args := []string{"exec", "--headless", "--api-version=2", "--accept-multiclient",
		"--listen=" + listen, "--log-dest=3"}
	if unixSock {
		// A client that leaves a Unix socket leaves no trace (a TCP one
		// leaves TIME_WAIT): Delve's log tells when one came.
		args = append(args, "--log", "--log-output=rpc")
	}
	if cfg.Dir != "" {
		args = append(args, "--wd", cfg.Dir)
	}
	args = append(args, cfg.Program)
	if len(cfg.Args) > 0 {
		args = append(args, "--")
		args = append(args, cfg.Args...)
	}
	cmd := exec.Command(cfg.Dlv, args...)
	// A race build replays as the search ran it: the race detector
	// writes its reports to a file the runtime reads, and the step of a
	// race ends the replay with its data-race failure.
	cmd.Env = rtnames.WithRaceLog(append(os.Environ(), cfg.Env...))
	cmd.Env = append(cmd.Env, rtnames.ReplayEnv+"="+cfg.Schedule)
	cmd.Stdout, cmd.Stderr = cfg.Stdout, cfg.Stderr
	cmd.ExtraFiles = []*os.File{logW}
	// Delve dies with stdbg; it is in a group of its own so that the
	// user's ^C at stdbg's prompt does not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// A Unix socket is created private: Delve inherits a umask that
	// leaves it to the user alone, and it is set to 0600 once there.
	umask := -1
	if unixSock {
		umask = syscall.Umask(0o077)
	}
	err = cmd.Start()
	if umask >= 0 {
		syscall.Umask(umask)
	}
	if err != nil {
		logR.Close()
		logW.Close()
		return nil, fmt.Errorf("starting %s: %w", cfg.Dlv, err)
	}
	logW.Close()
	b := &Bridge{cfg: cfg, cmd: cmd, exited: make(chan struct{})}
	go func() {
		b.waitErr = cmd.Wait()
		close(b.exited)
	}()

	addr := make(chan string, 1)
	var logText strings.Builder
	var logMu sync.Mutex
	go func() {
		defer logR.Close()
		sc := bufio.NewScanner(logR)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if a, ok := strings.CutPrefix(line, "API server listening at: "); ok && !sent {
				addr <- strings.TrimSpace(a)
				sent = true
				continue
			}
			if strings.Contains(line, " layer=rpc ") {
				if strings.Contains(line, "serving JSON-RPC on new connection") {
					b.accepted.Add(1)
				}
				continue
			}
			logMu.Lock()
			logText.WriteString(line + "\n")
			logMu.Unlock()
			fmt.Fprintln(cfg.Stderr, line)
		}
	}()
	timer := time.NewTimer(cfg.Timeout)
	defer timer.Stop()
	select {
	case b.Addr = <-addr:
		if unixSock {
			b.Addr, b.sock = "unix:"+sock, sock
			if err := os.Chmod(sock, 0o600); err != nil {
				b.kill()
				return nil, fmt.Errorf("dlv: making %s private: %w", sock, err)
			}
		}
	case <-b.exited:
		logMu.Lock()
		defer logMu.Unlock()
		return nil, fmt.Errorf("dlv exec %s ended before it listened (%v) %s", cfg.Program, b.waitErr, strings.TrimSpace(logText.String()))
	case <-timer.C:
		b.kill()
		return nil, fmt.Errorf("dlv exec %s: no listening address within %v", cfg.Program, cfg.Timeout)
	}
	if b.client, err = Dial(b.Addr, cfg.Timeout); err != nil {
		b.kill()
		return nil, err
	}
	b.pid = b.client.ProcessPid()
	b.bp, err = b.client.CreateBreakpoint(&Breakpoint{FunctionName: rtnames.HookFunc, Name: "stdbgstep"})
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("setting a breakpoint on %s: %w (is %s a program or test that uses package sthread?)", rtnames.HookFunc, err, cfg.Program)
	}
	return b, nil
}

// Dial connects to Delve's API at addr (host:port, or unix:PATH); the
// handshake is bounded by timeout.
func Dial(addr string, timeout time.Duration) (*Client, error) {
	network, where := "tcp", addr
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		network, where = "unix", path
	}
	conn, err := net.DialTimeout(network, where, timeout)
	if err != nil {
		return nil, fmt.Errorf("connecting to dlv at %s: %w", addr, err)
	}
	conn.SetDeadline(time.Now().Add(timeout))
	c, err := NewClient(conn)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("connecting to dlv at %s: %w", addr, err)
	}
	if _, err := c.GetState(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("connecting to dlv at %s: %w", addr, err)
	}
	conn.SetDeadline(time.Time{})
	return c, nil
}

// Next lets the target run to the next step hook and returns the stop.
// When the target ends instead, it returns a nil Stop and how the target
// ended. An error means Delve could not be driven, that the target
// stopped elsewhere (at a breakpoint: see Run), or that it did not reach
// the hook within the timeout (it is then halted).
func (b *Bridge) Next() (*Stop, *Exit, error) {
	s, exit, err := b.Run()
	if err != nil || exit != nil {
		return nil, exit, err
	}
	if s.Breakpoint != 0 {
		return nil, nil, fmt.Errorf("the target stopped in goroutine %d at %s:%d, not at %s (breakpoint %q)", s.Goroutine, s.File, s.Line, rtnames.HookFunc, s.BreakpointName)
	}
	return s, nil, nil
}

// Run lets the target run to its next stop: the step hook, another
// breakpoint (the Stop's Breakpoint says which), or its end (a nil Stop
// and how the target ended). An error means Delve could not be driven,
// or that the target did not stop within the timeout (it is then
// halted).
func (b *Bridge) Run() (*Stop, *Exit, error) {
	if b.exit != nil {
		return nil, b.exit, nil
	}
	st, err := b.cont()
	if err != nil {
		return nil, nil, err
	}
	if st.Exited {
		b.exit = &Exit{Status: st.ExitStatus}
		return nil, b.exit, nil
	}
	if atHook(st, b.bp.ID) {
		return b.position()
	}
	for _, th := range st.Threads {
		if th.Breakpoint == nil {
			continue
		}
		s, err := b.breakpointStop(th)
		return s, nil, err
	}
	where := ""
	if g := st.SelectedGoroutine; g != nil {
		where = fmt.Sprintf(" in goroutine %d at %s:%d", g.ID, g.CurrentLoc.File, g.CurrentLoc.Line)
	}
	return nil, nil, fmt.Errorf("the target stopped%s, not at a breakpoint (reason %q)", where, st.StopReason)
}

// breakpointStop describes the stop of thread th at a breakpoint that is
// not the step hook.
func (b *Bridge) breakpointStop(th *Thread) (*Stop, error) {
	v, err := b.client.EvalVariable(EvalScope{GoroutineID: th.GoroutineID}, rtnames.StateVar, stateLoad)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", rtnames.StateVar, err)
	}
	s, _, err := decodeState(v)
	if err != nil {
		return nil, err
	}
	s.Breakpoint, s.BreakpointName = th.Breakpoint.ID, th.Breakpoint.Name
	s.Goroutine, s.Thread = th.GoroutineID, 0
	for i, g := range s.Goroutines {
		if g == th.GoroutineID && g != 0 {
			s.Thread = i + 1
		}
	}
	s.File, s.Line, s.Frame = th.File, th.Line, 0
	if th.Function != nil {
		s.Func = th.Function.Name()
	}
	return s, nil
}

// cont continues the target and waits for it to stop, at most the
// timeout.
func (b *Bridge) cont() (*DebuggerState, error) {
	ch := b.client.Continue()
	timer := time.NewTimer(b.cfg.Timeout)
	defer timer.Stop()
	var last *DebuggerState
	for {
		select {
		case st, ok := <-ch:
			if !ok {
				if last == nil {
					return nil, errors.New("dlv: continue returned no state")
				}
				return last, nil
			}
			if st.Err != nil && !st.Exited {
				return nil, fmt.Errorf("dlv: continue: %w", st.Err)
			}
			last = st
		case <-b.exited:
			return nil, fmt.Errorf("dlv ended: %v", b.waitErr)
		case <-timer.C:
			b.client.Halt()
			return nil, fmt.Errorf("the target did not reach its next step within %v (halted)", b.cfg.Timeout)
		}
	}
}

// atHook reports whether some thread stopped at the breakpoint id.
func atHook(st *DebuggerState, id int) bool {
	for _, th := range st.Threads {
		if th.Breakpoint != nil && th.Breakpoint.ID == id {
			return true
		}
	}
	return false
}

// stateLoad loads the whole replay state.
var stateLoad = LoadConfig{FollowPointers: true, MaxVariableRecurse: 2, MaxStringLen: 4096, MaxArrayValues: 1 << 16, MaxStructFields: -1}

// position reads the replay state, selects the goroutine of the thread
// that runs next and finds its user frame.
func (b *Bridge) position() (*Stop, *Exit, error) {
	st, err := b.client.GetState()
	if err != nil {
		return nil, nil, fmt.Errorf("dlv: %w", err)
	}
	var gid int64 = -1
	if st.SelectedGoroutine != nil {
		gid = st.SelectedGoroutine.ID
	}
	v, err := b.client.EvalVariable(EvalScope{GoroutineID: gid}, rtnames.StateVar, stateLoad)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", rtnames.StateVar, err)
	}
	s, entry, err := decodeState(v)
	if err != nil {
		return nil, nil, err
	}
	if s.Over || s.Thread < 1 {
		return s, nil, nil
	}
	if s.Thread > len(s.Goroutines) || s.Goroutines[s.Thread-1] == 0 {
		return nil, nil, fmt.Errorf("step %d: sthread publishes no goroutine for thread %d", s.Step, s.Thread)
	}
	s.Goroutine = s.Goroutines[s.Thread-1]
	if err := b.locate(s, entry); err != nil {
		return nil, nil, err
	}
	return s, nil, nil
}

// Select makes goroutine g Delve's selected goroutine.
func (b *Bridge) selectGoroutine(g int64) error {
	if _, err := b.client.SwitchGoroutine(g); err != nil {
		return fmt.Errorf("dlv: switching to goroutine %d: %w", g, err)
	}
	return nil
}

// locate selects the stop's goroutine and fills in its user frame.
func (b *Bridge) locate(s *Stop, entry uint64) error {
	if err := b.selectGoroutine(s.Goroutine); err != nil {
		return err
	}
	frames, err := b.client.Stacktrace(s.Goroutine, 64)
	if err != nil {
		return fmt.Errorf("dlv: stack of goroutine %d: %w", s.Goroutine, err)
	}
	s.Frame = -1
	for i, fr := range frames {
		if fr.Function == nil || !UserFunc(fr.Function.Name()) {
			continue
		}
		s.Frame, s.Func, s.File, s.Line = i, fr.Function.Name(), fr.File, fr.Line
		return nil
	}
	// A goroutine about to return: no user frame is left on its stack;
	// it is shown at the start of its function.
	if entry != 0 {
		locs, err := b.client.FindLocation(EvalScope{GoroutineID: s.Goroutine}, fmt.Sprintf("*%#x", entry))
		if err == nil && len(locs) > 0 {
			l := locs[0]
			s.File, s.Line = l.File, l.Line
			if l.Function != nil {
				s.Func = l.Function.Name()
			}
		}
	}
	return nil
}

// UserFrame returns the index of the first frame of a stack that is the
// user's (UserFunc), -1 if none is.
func UserFrame(frames []Stackframe) int {
	for i, fr := range frames {
		if fr.Function != nil && UserFunc(fr.Function.Name()) {
			return i
		}
	}
	return -1
}

// UserFunc reports whether a function is the user's: not the Go
// runtime's, nor sthread's (or its packages'), nor the testing package's.
func UserFunc(name string) bool {
	if rtnames.IsRuntimeFunc(name) {
		return false
	}
	for _, p := range []string{"runtime.", "testing.", "internal/", "sync."} {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	return true
}

// decodeState turns the published state into a Stop.
func decodeState(v *Variable) (*Stop, uint64, error) {
	s := &Stop{}
	var entry uint64
	for _, c := range v.Children {
		var err error
		switch c.Name {
		case "Step":
			_, err = fmt.Sscan(c.Value, &s.Step)
		case "Steps":
			_, err = fmt.Sscan(c.Value, &s.Steps)
		case "Thread":
			_, err = fmt.Sscan(c.Value, &s.Thread)
		case "Entry":
			_, err = fmt.Sscan(c.Value, &entry)
		case "Over":
			s.Over = c.Value == "true"
		case "Outcome":
			s.Outcome = c.Value
		case "Goroutines":
			for _, g := range c.Children {
				var id int64
				if _, err = fmt.Sscan(g.Value, &id); err != nil {
					break
				}
				s.Goroutines = append(s.Goroutines, id)
			}
		}
		if err != nil {
			return nil, 0, fmt.Errorf("reading %s.%s = %q: %w", rtnames.StateVar, c.Name, c.Value, err)
		}
	}
	return s, entry, nil
}

// Client is the JSON-RPC client through which the bridge drives Delve,
// for reading the stopped target (goroutines, stacks, variables) and
// setting breakpoints. Resume the target through Next or Run only, which
// keep the replay's position; nil after HandOver.
func (b *Bridge) Client() *Client { return b.client }

// Eval evaluates expr in the selected goroutine's frame and returns its
// value as Delve prints it.
func (b *Bridge) Eval(goroutine int64, frame int, expr string) (string, error) {
	v, err := b.client.EvalVariable(EvalScope{GoroutineID: goroutine, Frame: frame}, expr, LoadConfig{FollowPointers: true, MaxVariableRecurse: 1, MaxStringLen: 256, MaxArrayValues: 64, MaxStructFields: -1})
	if err != nil {
		return "", err
	}
	return v.String(), nil
}

// HandOver leaves the target stopped at stop s for another client: it
// clears the bridge's breakpoint, selects the goroutine of s and
// disconnects without resuming. Delve keeps running (see Wait).
func (b *Bridge) HandOver(s *Stop) error {
	if b.bp != nil {
		if _, err := b.client.ClearBreakpoint(b.bp.ID); err != nil {
			return fmt.Errorf("dlv: clearing the breakpoint on %s: %w", rtnames.HookFunc, err)
		}
		b.bp = nil
	}
	if s != nil && s.Goroutine > 0 {
		if err := b.selectGoroutine(s.Goroutine); err != nil {
			return err
		}
	}
	err := b.client.Disconnect()
	b.client = nil
	if err != nil {
		return fmt.Errorf("dlv: disconnecting: %w", err)
	}
	// The connections so far (the bridge's own) are not a client's
	// (WaitClient).
	b.before = map[int]bool{}
	b.acceptedBefore.Store(b.accepted.Load())
	if list := b.connections(); list != nil {
		for _, c := range list() {
			b.before[c.peer] = true
		}
	}
	return nil
}

// connections returns the lister of the connections to Delve (nil when
// they cannot be listed): TCP connections by the port at their other end,
// Unix ones by the inode of Delve's end.
func (b *Bridge) connections() func() []tcpConn {
	if b.sock != "" {
		if _, err := connectedUnixSockets(); err != nil {
			return nil
		}
		return func() []tcpConn { return unixConnectionsOf(b.sock) }
	}
	_, port, err := net.SplitHostPort(b.Addr)
	if err != nil {
		return nil
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil
	}
	return func() []tcpConn { return connectionsOf(p) }
}

// unixConnectionsOf lists the connections accepted on the Unix socket at
// path: Delve's end of each, which carries the path, by inode; one whose
// client has gone is no longer established.
func unixConnectionsOf(path string) []tcpConn {
	var out []tcpConn
	list, _ := connectedUnixSockets()
	for _, s := range list {
		if s.path == path {
			out = append(out, tcpConn{peer: int(s.inode), established: !s.peerGone})
		}
	}
	return out
}

// Wait waits for Delve to end (the last client quit and killed the
// target), at most d; then it ends Delve and the target itself.
func (b *Bridge) Wait(d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-b.exited:
		return nil
	case <-timer.C:
		b.Close()
		return fmt.Errorf("dlv still ran after %v: stopped it", d)
	}
}

// WaitClient waits for the interactive session after HandOver: it ends
// when Delve ends, when a client that connected has left (none of its
// connections to Addr open for a second), or when no client came within
// d. In the last two cases it stops Delve and the target.
func (b *Bridge) WaitClient(d time.Duration) error {
	list := b.connections()
	if list == nil {
		return b.Wait(d)
	}
	before := b.before
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	seen, gone := false, 0
	for {
		select {
		case <-b.exited:
			return nil
		case <-deadline.C:
			if !seen {
				b.Close()
				return fmt.Errorf("no Delve client came within %v: stopped Delve", d)
			}
		case <-tick.C:
			// A client may have come and gone between two looks.
			seen = seen || b.accepted.Load() > b.acceptedBefore.Load()
			open := false
			for _, c := range list() {
				if before[c.peer] {
					continue
				}
				// Even a client already gone leaves its side of the
				// connection waiting (TIME_WAIT) for a while.
				seen = true
				open = open || c.established
			}
			switch {
			case open:
				gone = 0
			case seen:
				if gone++; gone >= 10 {
					b.Close()
					return nil
				}
			}
		}
	}
}

// tcpConn is a TCP connection to or from a port: the port at its other
// end, and whether it is established.
type tcpConn struct {
	peer        int
	established bool
}

// connectionsOf lists the TCP connections with port at one end, from
// /proc/net/tcp and tcp6 (listening sockets left out).
func connectionsOf(port int) []tcpConn {
	var out []tcpConn
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			fields := strings.Fields(line)
			if len(fields) < 4 || fields[3] == "0A" { // 0A: LISTEN
				continue
			}
			local, remote := hexPort(fields[1]), hexPort(fields[2])
			switch port {
			case local:
				out = append(out, tcpConn{peer: remote, established: fields[3] == "01"})
			case remote:
				out = append(out, tcpConn{peer: local, established: fields[3] == "01"})
			}
		}
	}
	return out
}

// hexPort returns the port of an address of /proc/net/tcp ("0100007F:1F90").
func hexPort(addr string) int {
	_, h, ok := strings.Cut(addr, ":")
	v, err := strconv.ParseUint(h, 16, 32)
	if !ok || err != nil {
		return -1
	}
	return int(v)
}

// Exited reports a channel closed when Delve ends.
func (b *Bridge) Exited() <-chan struct{} { return b.exited }

// Close ends the session: it kills the target and Delve.
func (b *Bridge) Close() {
	b.once.Do(func() {
		if b.client != nil {
			done := make(chan struct{})
			go func() {
				b.client.Detach(true)
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
			}
		}
		b.kill()
		if b.sock != "" {
			// Delve unlinks its socket when it closes it; not when it
			// is killed.
			os.Remove(b.sock)
		}
	})
}

// kill ends Delve and the target by force and waits for Delve.
func (b *Bridge) kill() {
	if b.pid > 0 {
		syscall.Kill(b.pid, syscall.SIGKILL)
		if f := rtnames.RaceLogFile(b.cmd.Env, b.pid); f != "" {
			defer os.Remove(f)
		}
	}
	select {
	case <-b.exited:
		return
	default:
	}
	b.cmd.Process.Kill()
	select {
	case <-b.exited:
	case <-time.After(10 * time.Second):
	}
}

// script is the Starlark script that adds the stdbg_where and stdbg_next
// commands to Delve's terminal.
//
//go:embed stdbg.star
var script []byte

// WriteScript writes into dir the Starlark script that adds stdbg's
// commands to Delve's terminal (stdbg_where: the step about to run, its
// thread and goroutine, selected, and its source; stdbg_next: run that
// step and stop before the next), and an init file that loads it, and
// returns the init file's path, for dlv connect --init.
func WriteScript(dir string) (string, error) {
	star := filepath.Join(dir, "stdbg.star")
	if err := os.WriteFile(star, script, 0o644); err != nil {
		return "", fmt.Errorf("writing the Delve script: %w", err)
	}
	init := filepath.Join(dir, "stdbg.init")
	if err := os.WriteFile(init, []byte("source "+star+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("writing the Delve init file: %w", err)
	}
	return init, nil
}
