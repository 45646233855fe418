package dap_test

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/stdbg/stdbg/debug/dlvbridge"
	"github.com/stdbg/stdbg/frontend/dap"
	"github.com/stdbg/stdbg/frontend/dap/daptest"
	"github.com/stdbg/stdbg/internal/testkit/testcache"
)

// wait bounds every wait of these tests on the server (a guard against a
// hang only: a step under Delve takes milliseconds).
const wait = 2 * time.Minute

var (
	dlvOnce sync.Once
	dlvPath string
	dlvErr  error
	testDir string // the directory this test run owns (TestMain)
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stdbg-dap-test-")
	if err != nil {
		panic(err)
	}
	testDir = dir
	// The targets' builds go to a stdbg cache (testcache: the test
	// run's shared one, or one of the package's own).
	remove, err := testcache.Setup()
	if err != nil {
		panic(err)
	}
	code := m.Run()
	remove()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needDlv returns a Delve executable: dlv on PATH (CI installs it), else
// the pinned version, built once per test run. These tests drive the
// real Delve: they never skip.
func needDlv(t *testing.T) string {
	t.Helper()
	dlvOnce.Do(func() {
		if p, err := dlvbridge.Find(""); err == nil {
			dlvPath = p
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		dlvPath, dlvErr = dlvbridge.Build(ctx, testDir)
	})
	if dlvErr != nil {
		t.Fatalf("no dlv on PATH and building it failed: %v", dlvErr)
	}
	return dlvPath
}

var (
	buildOnce sync.Once
	embrace   string // the debugging build of examples/go/embrace-prog
	buildErr  error
	sourceDir string
)

// embraceProg builds examples/go/embrace-prog with optimisations off,
// once per test run, and returns it and its source directory.
func embraceProg(t *testing.T) (bin, dir string) {
	t.Helper()
	buildOnce.Do(func() {
		sourceDir, buildErr = filepath.Abs(filepath.Join("..", "..", "examples", "go", "embrace-prog"))
		if buildErr != nil {
			return
		}
		embrace = filepath.Join(testDir, "embrace-prog")
		cmd := exec.Command("go", "build", "-gcflags=all=-N -l", "-o", embrace, ".")
		cmd.Dir = sourceDir
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building embrace-prog: %v", buildErr)
	}
	return embrace, sourceDir
}

// launcher starts Delve on embrace-prog, replaying the schedule of the
// launch request, and keeps the bridges it started.
type launcher struct {
	t       *testing.T
	mu      sync.Mutex
	bridges []*dlvbridge.Bridge
}

func (l *launcher) Launch(ctx context.Context, args dap.LaunchArgs, out dap.Output) (*dap.Replay, error) {
	bin, dir := embraceProg(l.t)
	b, err := dlvbridge.Start(dlvbridge.Config{Dlv: needDlv(l.t), Program: bin, Dir: dir, Schedule: args.Schedule,
		Stdout: out.Stdout, Stderr: out.Stderr, Timeout: time.Minute})
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.bridges = append(l.bridges, b)
	l.mu.Unlock()
	return &dap.Replay{Bridge: b, Schedule: args.Schedule, Name: "embrace-prog"}, nil
}

// ended checks that every Delve the launcher started has ended.
func (l *launcher) ended(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range l.bridges {
		select {
		case <-b.Exited():
		case <-time.After(wait):
			t.Errorf("Delve at %s still runs after the session", b.Addr)
		}
	}
}

// pipeServer serves one session on pipes and returns its client and a
// channel that gets Serve's result.
func pipeServer(t *testing.T, srv *dap.Server) (*daptest.Client, io.Closer, <-chan error) {
	t.Helper()
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := srv.Serve(context.Background(), toServer, toClient)
		toClient.Close()
		done <- err
	}()
	return daptest.New(fromServer, fromClient, wait), fromClient, done
}

// do sends a request and fails the test if it fails.
func do[R godap.ResponseMessage](t *testing.T, c *daptest.Client, req godap.RequestMessage) R {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := resp.(R)
	if !ok {
		t.Fatalf("%s: response %T", req.GetRequest().Command, resp)
	}
	return r
}

// stopped waits for a stopped event and checks its reason and thread.
func stopped(t *testing.T, c *daptest.Client, reason string, thread int) *godap.StoppedEvent {
	t.Helper()
	e, err := c.Stopped()
	if err != nil {
		t.Fatal(err)
	}
	if e.Body.Reason != reason || e.Body.ThreadId != thread || !e.Body.AllThreadsStopped {
		t.Fatalf("stopped %+v, want reason %q in thread %d, every thread stopped", e.Body, reason, thread)
	}
	return e
}

// top returns the top frame of a thread's stack.
func top(t *testing.T, c *daptest.Client, thread int) godap.StackFrame {
	t.Helper()
	st := do[*godap.StackTraceResponse](t, c, &godap.StackTraceRequest{Request: daptest.Request("stackTrace"), Arguments: godap.StackTraceArguments{ThreadId: thread}})
	if len(st.Body.StackFrames) == 0 {
		t.Fatalf("thread %d has no frames", thread)
	}
	return st.Body.StackFrames[0]
}

// TestSession drives a session end to end, as an editor does, over a
// real Delve replaying the deadly embrace of embrace-prog (schedule
// 1;1;2;2): every stop is before a step in the goroutine of its thread,
// next runs one step, continue runs to the user's breakpoint and then to
// the bug, and disconnect ends Delve and the program.
func TestSession(t *testing.T) {
	l := &launcher{t: t}
	c, _, done := pipeServer(t, &dap.Server{Launcher: l})
	_, dir := embraceProg(t)
	main := filepath.Join(dir, "main.go")

	init := do[*godap.InitializeResponse](t, c, &godap.InitializeRequest{Request: daptest.Request("initialize"),
		Arguments: godap.InitializeRequestArguments{AdapterID: "stdbg", LinesStartAt1: true, ColumnsStartAt1: true}})
	if caps := init.Body; !caps.SupportsConfigurationDoneRequest || !caps.SupportsFunctionBreakpoints || !caps.SupportsConditionalBreakpoints {
		t.Errorf("capabilities %+v", caps)
	}
	do[*godap.LaunchResponse](t, c, &godap.LaunchRequest{Request: daptest.Request("launch"),
		Arguments: []byte(`{"type": "stdbg", "request": "launch", "name": "embrace", "schedule": "1;1;2;2", "package": "./embrace-prog"}`)})
	if _, err := c.Event("initialized"); err != nil {
		t.Fatal(err)
	}
	// Line 16, a.Lock() in the goroutine: thread 2 gets there in step 4,
	// after its b.Lock(); line 17 is never reached.
	bps := do[*godap.SetBreakpointsResponse](t, c, &godap.SetBreakpointsRequest{Request: daptest.Request("setBreakpoints"),
		Arguments: godap.SetBreakpointsArguments{Source: godap.Source{Path: main}, Breakpoints: []godap.SourceBreakpoint{{Line: 16}}}})
	if len(bps.Body.Breakpoints) != 1 || !bps.Body.Breakpoints[0].Verified || bps.Body.Breakpoints[0].Line != 16 {
		t.Fatalf("breakpoints %+v", bps.Body.Breakpoints)
	}
	bpID := bps.Body.Breakpoints[0].Id
	do[*godap.SetExceptionBreakpointsResponse](t, c, &godap.SetExceptionBreakpointsRequest{Request: daptest.Request("setExceptionBreakpoints")})
	do[*godap.ConfigurationDoneResponse](t, c, &godap.ConfigurationDoneRequest{Request: daptest.Request("configurationDone")})

	// Before step 1: thread 1 is about to start thread 2, at line 14.
	stopped(t, c, "entry", 1)
	threads := do[*godap.ThreadsResponse](t, c, &godap.ThreadsRequest{Request: daptest.Request("threads")})
	if len(threads.Body.Threads) != 1 || threads.Body.Threads[0].Id != 1 || !strings.HasPrefix(threads.Body.Threads[0].Name, "thread 1 (main.func1") {
		t.Errorf("threads before step 1: %+v", threads.Body.Threads)
	}
	f := top(t, c, 1)
	if f.Source == nil || f.Source.Path != main || f.Line != 14 || f.Name != "main.main.func1" {
		t.Errorf("thread 1 before step 1 is at %+v, want main.main.func1 at main.go:14", f)
	}
	scopes := do[*godap.ScopesResponse](t, c, &godap.ScopesRequest{Request: daptest.Request("scopes"), Arguments: godap.ScopesArguments{FrameId: f.Id}})
	if len(scopes.Body.Scopes) != 2 || scopes.Body.Scopes[0].Name != "Locals" || scopes.Body.Scopes[1].Name != "Replay" {
		t.Fatalf("scopes %+v", scopes.Body.Scopes)
	}
	vars := variables(t, c, scopes.Body.Scopes[0].VariablesReference)
	if v, ok := vars["transfers"]; !ok || v.Value != "0" || v.Type != "int" {
		t.Errorf("transfers = %+v, want 0 (locals: %v)", v, vars)
	}
	a, ok := vars["a"]
	if !ok || a.VariablesReference == 0 {
		t.Fatalf("the mutex a is not a variable with children: %+v", a)
	}
	if fields := variables(t, c, a.VariablesReference); len(fields) == 0 {
		t.Errorf("the mutex a has no fields")
	}
	replay := variables(t, c, scopes.Body.Scopes[1].VariablesReference)
	if replay["step"].Value != "1 of 4, about to run" || replay["thread"].Value != "1" || replay["schedule"].Value != "1;1;2;2" {
		t.Errorf("the Replay scope: %+v", replay)
	}
	ev := do[*godap.EvaluateResponse](t, c, &godap.EvaluateRequest{Request: daptest.Request("evaluate"), Arguments: godap.EvaluateArguments{Expression: "transfers + 2", FrameId: f.Id, Context: "watch"}})
	if ev.Body.Result != "2" {
		t.Errorf("transfers + 2 = %q", ev.Body.Result)
	}

	// next: step 1 runs; thread 1 is then about to lock a (line 22).
	do[*godap.NextResponse](t, c, &godap.NextRequest{Request: daptest.Request("next"), Arguments: godap.NextArguments{ThreadId: 1}})
	stopped(t, c, "step", 1)
	if f := top(t, c, 1); f.Line != 22 {
		t.Errorf("before step 2, thread 1 is at line %d, want 22", f.Line)
	}
	// step in runs one step too: thread 2 starts.
	do[*godap.StepInResponse](t, c, &godap.StepInRequest{Request: daptest.Request("stepIn"), Arguments: godap.StepInArguments{ThreadId: 1}})
	stopped(t, c, "step", 2)
	threads = do[*godap.ThreadsResponse](t, c, &godap.ThreadsRequest{Request: daptest.Request("threads")})
	if len(threads.Body.Threads) != 2 || threads.Body.Threads[1].Id != 2 || !strings.HasPrefix(threads.Body.Threads[1].Name, "thread 2") {
		t.Errorf("threads before step 3: %+v", threads.Body.Threads)
	}
	// Thread 1 waits at b.Lock (line 23), holding a.
	if f := top(t, c, 1); f.Line != 23 {
		t.Errorf("before step 3, thread 1 is at line %d, want 23", f.Line)
	}

	// continue: thread 2 runs step 3 and, in step 4, reaches line 16.
	do[*godap.ContinueResponse](t, c, &godap.ContinueRequest{Request: daptest.Request("continue"), Arguments: godap.ContinueArguments{ThreadId: 2}})
	e := stopped(t, c, "breakpoint", 2)
	if len(e.Body.HitBreakpointIds) != 1 || e.Body.HitBreakpointIds[0] != bpID {
		t.Errorf("stopped at breakpoints %v, want [%d]", e.Body.HitBreakpointIds, bpID)
	}
	if f := top(t, c, 2); f.Line != 16 || f.Name != "main.main.func1.1" {
		t.Errorf("at the breakpoint thread 2 is at %s:%d, want main.main.func1.1 at line 16", f.Name, f.Line)
	}
	// continue: the deadlock after step 4 is an exception stop.
	do[*godap.ContinueResponse](t, c, &godap.ContinueRequest{Request: daptest.Request("continue"), Arguments: godap.ContinueArguments{ThreadId: 2}})
	e = stopped(t, c, "exception", 2)
	if !strings.HasPrefix(e.Body.Text, "deadlock: ") {
		t.Errorf("the exception stop says %q, want the deadlock", e.Body.Text)
	}
	info := do[*godap.ExceptionInfoResponse](t, c, &godap.ExceptionInfoRequest{Request: daptest.Request("exceptionInfo"), Arguments: godap.ExceptionInfoArguments{ThreadId: 2}})
	if info.Body.ExceptionId != "deadlock" || info.Body.BreakMode != "always" {
		t.Errorf("exception info %+v", info.Body)
	}
	// continue: the program ends, with the deadlock's status.
	do[*godap.ContinueResponse](t, c, &godap.ContinueRequest{Request: daptest.Request("continue"), Arguments: godap.ContinueArguments{ThreadId: 2}})
	exited, err := c.Event("exited")
	if err != nil {
		t.Fatal(err)
	}
	if code := exited.(*godap.ExitedEvent).Body.ExitCode; code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if _, err := c.Event("terminated"); err != nil {
		t.Fatal(err)
	}
	out := c.Output()
	for _, want := range []string{"step 1/4  thread 1  goroutine ", "step 4/4  thread 2  goroutine ", "end after step 4/4: deadlock: ", "DEADLOCK DETECTED", "The program exited with status 1."} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	do[*godap.DisconnectResponse](t, c, &godap.DisconnectRequest{Request: daptest.Request("disconnect")})
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(wait):
		t.Fatal("the server still serves after the disconnect")
	}
	l.ended(t)
}

// variables lists the variables of a reference by name.
func variables(t *testing.T, c *daptest.Client, ref int) map[string]godap.Variable {
	t.Helper()
	r := do[*godap.VariablesResponse](t, c, &godap.VariablesRequest{Request: daptest.Request("variables"), Arguments: godap.VariablesArguments{VariablesReference: ref}})
	out := map[string]godap.Variable{}
	for _, v := range r.Body.Variables {
		out[v.Name] = v
	}
	return out
}

// A client that goes away in the middle of a replay ends it: Serve
// returns and Delve and the program end.
func TestClientLeaves(t *testing.T) {
	l := &launcher{t: t}
	c, toServer, done := pipeServer(t, &dap.Server{Launcher: l})
	do[*godap.InitializeResponse](t, c, &godap.InitializeRequest{Request: daptest.Request("initialize")})
	do[*godap.LaunchResponse](t, c, &godap.LaunchRequest{Request: daptest.Request("launch"), Arguments: []byte(`{"schedule": "1;1;2;2", "package": "."}`)})
	do[*godap.ConfigurationDoneResponse](t, c, &godap.ConfigurationDoneRequest{Request: daptest.Request("configurationDone")})
	stopped(t, c, "entry", 1)
	toServer.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(wait):
		t.Fatal("the server still serves after its client left")
	}
	l.ended(t)
}

// The server listens on loopback only, serves one client, and gives up
// on a client that does not come.
func TestListen(t *testing.T) {
	for _, tt := range []struct {
		addr, want string
	}{
		{"127.0.0.1:0", ""},
		{"localhost:0", ""},
		{"[::1]:0", ""},
		{"0.0.0.0:4711", "not a loopback address"},
		{":4711", "not a loopback address"},
		{"10.1.2.3:4711", "not a loopback address"},
		{"4711", "not host:port"},
	} {
		err := dap.CheckListen(tt.addr)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("CheckListen(%q) = %v, want %q", tt.addr, err, tt.want)
		}
	}

	l, err := dap.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &dap.Server{Launcher: dap.LauncherFunc(func(context.Context, dap.LaunchArgs, dap.Output) (*dap.Replay, error) {
		return nil, errors.New("not today")
	})}
	done := make(chan error, 1)
	go func() { done <- srv.ServeListener(context.Background(), l, wait) }()
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := daptest.New(conn, conn, wait)
	do[*godap.InitializeResponse](t, c, &godap.InitializeRequest{Request: daptest.Request("initialize")})
	if _, err := c.Do(&godap.LaunchRequest{Request: daptest.Request("launch"), Arguments: []byte(`{"entry": "x.json"}`)}); err == nil || !strings.Contains(err.Error(), "not today") {
		t.Errorf("launch: %v, want the launcher's error", err)
	}
	// One client: a second is refused.
	if c2, err := net.DialTimeout("tcp", l.Addr().String(), time.Second); err == nil {
		c2.Close()
		t.Errorf("a second client could connect")
	}
	do[*godap.DisconnectResponse](t, c, &godap.DisconnectRequest{Request: daptest.Request("disconnect")})
	if err := <-done; err != nil {
		t.Errorf("ServeListener: %v", err)
	}
	conn.Close()

	l, err = dap.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.ServeListener(context.Background(), l, 100*time.Millisecond); !errors.Is(err, dap.ErrNoClient) {
		t.Errorf("ServeListener with no client: %v, want ErrNoClient", err)
	}
}

// rawRequest is a request of any command, with any arguments.
type rawRequest struct {
	godap.Request
	Arguments any `json:"arguments,omitempty"`
}

// Requests the server cannot serve get error responses that say why,
// and the session goes on.
func TestBadRequests(t *testing.T) {
	srv := &dap.Server{Launcher: dap.LauncherFunc(func(context.Context, dap.LaunchArgs, dap.Output) (*dap.Replay, error) {
		t.Error("the launcher was called")
		return nil, errors.New("no")
	})}
	c, _, done := pipeServer(t, srv)
	do[*godap.InitializeResponse](t, c, &godap.InitializeRequest{Request: daptest.Request("initialize")})
	for _, tt := range []struct {
		req  godap.RequestMessage
		want string
	}{
		{&godap.LaunchRequest{Request: daptest.Request("launch"), Arguments: []byte(`{}`)}, "nothing to replay"},
		{&godap.LaunchRequest{Request: daptest.Request("launch"), Arguments: []byte(`{"entry": "a.json", "schedule": "1;2"}`)}, "not both"},
		{&godap.LaunchRequest{Request: daptest.Request("launch"), Arguments: []byte(`{"schedule": "1;2"}`)}, `"schedule" needs "package"`},
		{&godap.LaunchRequest{Request: daptest.Request("launch"), Arguments: []byte(`{"entry": "prog.c"}`)}, "a .json file"},
		{&godap.AttachRequest{Request: daptest.Request("attach"), Arguments: []byte(`{}`)}, "use a launch request"},
		{&godap.StackTraceRequest{Request: daptest.Request("stackTrace"), Arguments: godap.StackTraceArguments{ThreadId: 1}}, "nothing is launched"},
		{&godap.NextRequest{Request: daptest.Request("next"), Arguments: godap.NextArguments{ThreadId: 1}}, "nothing runs yet"},
		{&godap.StepBackRequest{Request: daptest.Request("stepBack")}, "does not support the stepBack request"},
		{&rawRequest{Request: daptest.Request("fooBar")}, "does not support the fooBar request"},
		{&rawRequest{Request: daptest.Request("stackTrace"), Arguments: map[string]any{"threadId": "one"}}, "its arguments: "},
	} {
		_, err := c.Do(tt.req)
		if err == nil || !errors.Is(err, daptest.ErrFailed) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error response saying %q", tt.req.GetRequest().Command, err, tt.want)
		}
	}
	do[*godap.DisconnectResponse](t, c, &godap.DisconnectRequest{Request: daptest.Request("disconnect")})
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
