package debug

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-delve/delve/service/rpc2"
	godap "github.com/google/go-dap"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/frontend/dap/daptest"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// dapWait bounds each wait of the stdbg dap tests (a guard against a hang
// only).
const dapWait = 5 * time.Minute

// dapDo sends a request and fails the test if it fails.
func dapDo[R godap.ResponseMessage](t *testing.T, c *daptest.Client, req godap.RequestMessage) R {
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

// dapStopped waits for a stopped event and checks its reason and thread.
func dapStopped(t *testing.T, c *daptest.Client, reason string, thread int) *godap.StoppedEvent {
	t.Helper()
	e, err := c.Stopped()
	if err != nil {
		t.Fatal(err)
	}
	if e.Body.Reason != reason || e.Body.ThreadId != thread {
		t.Fatalf("stopped %+v, want reason %q in thread %d\n%s", e.Body, reason, thread, c.Output())
	}
	return e
}

// dapStack returns a thread's stack.
func dapStack(t *testing.T, c *daptest.Client, thread int) []godap.StackFrame {
	t.Helper()
	st := dapDo[*godap.StackTraceResponse](t, c, &godap.StackTraceRequest{Request: daptest.Request("stackTrace"), Arguments: godap.StackTraceArguments{ThreadId: thread}})
	if len(st.Body.StackFrames) == 0 {
		t.Fatalf("thread %d has no frames", thread)
	}
	return st.Body.StackFrames
}

// dapThreads returns the names of the threads by id.
func dapThreads(t *testing.T, c *daptest.Client) map[int]string {
	t.Helper()
	r := dapDo[*godap.ThreadsResponse](t, c, &godap.ThreadsRequest{Request: daptest.Request("threads")})
	out := map[int]string{}
	for _, th := range r.Body.Threads {
		out[th.Id] = th.Name
	}
	return out
}

// launchArgs is the JSON of a launch request's arguments.
func launchArgs(t *testing.T, args map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDAP debugs the deadlock of a plain Go test (examples/go/plain/
// transfer) through stdbg dap, as an editor does, on standard input and
// output and then on a loopback port: the threads are stdbg's, with the
// functions they run and where they started; a breakpoint in the
// program stops the thread that reaches it; the deadlock is an exception
// stop with stdbg's report; a C target is refused; the server ends when
// its client disconnects or leaves.
func TestDAP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary twice and runs Delve")
	}
	needDlv(t)
	t.Setenv("STDBG_ZOO", "1")
	plain, err := filepath.Abs(filepath.Join(clirun.Root(), "examples", "go", "plain"))
	if err != nil {
		t.Fatal(err)
	}
	transferGo := filepath.Join(plain, "transfer", "transfer.go")
	const sched = "1;1;1;2;2;3;3"

	t.Run("stdin and stdout", func(t *testing.T) {
		toServer, fromClient := io.Pipe()
		fromServer, toClient := io.Pipe()
		var errb strings.Builder
		done := make(chan int, 1)
		go func() {
			code := cli.Run([]string{"dap"}, toServer, toClient, &errb)
			toClient.Close()
			done <- code
		}()
		c := daptest.New(fromServer, fromClient, dapWait)
		dapDo[*godap.InitializeResponse](t, c, &godap.InitializeRequest{Request: daptest.Request("initialize"),
			Arguments: godap.InitializeRequestArguments{AdapterID: "stdbg", LinesStartAt1: true}})
		// A C target: refused, and the session goes on.
		_, err := c.Do(&godap.LaunchRequest{Request: daptest.Request("launch"), Arguments: launchArgs(t, map[string]any{
			"schedule": "1;1;2", "package": clirun.Example("deadly-embrace.c")})})
		if err == nil || !strings.Contains(err.Error(), "stdbg dap serves Go targets; for C and C++ use stdbg replay --gdb") {
			t.Errorf("launch on a C program: %v", err)
		}
		dapDo[*godap.LaunchResponse](t, c, &godap.LaunchRequest{Request: daptest.Request("launch"), Arguments: launchArgs(t, map[string]any{
			"type": "go", "request": "launch", "name": "stdbg", "cwd": plain,
			"schedule": sched, "package": "transfer", "run": "TestTransfer$"})})
		if _, err := c.Event("initialized"); err != nil {
			t.Fatal(err)
		}
		// transfer.go:18, to.mu.Lock(): threads 2 and 3 get there in
		// steps 5 and 7, holding their first lock.
		bps := dapDo[*godap.SetBreakpointsResponse](t, c, &godap.SetBreakpointsRequest{Request: daptest.Request("setBreakpoints"),
			Arguments: godap.SetBreakpointsArguments{Source: godap.Source{Path: transferGo}, Breakpoints: []godap.SourceBreakpoint{{Line: 18}}}})
		if len(bps.Body.Breakpoints) != 1 || !bps.Body.Breakpoints[0].Verified {
			t.Fatalf("breakpoints %+v", bps.Body.Breakpoints)
		}
		dapDo[*godap.ConfigurationDoneResponse](t, c, &godap.ConfigurationDoneRequest{Request: daptest.Request("configurationDone")})

		dapStopped(t, c, "entry", 1)
		if f := dapStack(t, c, 1)[0]; f.Source == nil || filepath.Base(f.Source.Path) != "transfer_test.go" || f.Line != 15 {
			t.Errorf("before step 1 thread 1 is at %+v, want transfer_test.go:15 (wg.Add)", f)
		}
		if name := dapThreads(t, c)[1]; name != "thread 1 (TestTransfer.func1)" {
			t.Errorf("thread 1 is named %q", name)
		}
		dapDo[*godap.NextResponse](t, c, &godap.NextRequest{Request: daptest.Request("next"), Arguments: godap.NextArguments{ThreadId: 1}})
		e := dapStopped(t, c, "step", 1)
		if !strings.HasPrefix(e.Body.Description, "before step 2/7: thread 1, go -> thread 2") {
			t.Errorf("the stop says %q", e.Body.Description)
		}
		if f := dapStack(t, c, 1)[0]; f.Line != 16 {
			t.Errorf("before step 2 thread 1 is at line %d, want 16", f.Line)
		}

		dapDo[*godap.ContinueResponse](t, c, &godap.ContinueRequest{Request: daptest.Request("continue"), Arguments: godap.ContinueArguments{ThreadId: 1}})
		dapStopped(t, c, "breakpoint", 2)
		threads := dapThreads(t, c)
		if threads[2] != "thread 2 (TestTransfer.func1.1, started at transfer_test.go:16)" || threads[3] != "thread 3 (TestTransfer.func1.2, started at transfer_test.go:20)" {
			t.Errorf("threads %v", threads)
		}
		stack := dapStack(t, c, 2)
		if f := stack[0]; !strings.HasSuffix(f.Name, "/transfer.Transfer") || f.Line != 18 {
			t.Errorf("at the breakpoint thread 2 is at %s line %d, want Transfer at line 18", f.Name, f.Line)
		}
		scopes := dapDo[*godap.ScopesResponse](t, c, &godap.ScopesRequest{Request: daptest.Request("scopes"), Arguments: godap.ScopesArguments{FrameId: stack[0].Id}})
		vars := dapDo[*godap.VariablesResponse](t, c, &godap.VariablesRequest{Request: daptest.Request("variables"), Arguments: godap.VariablesArguments{VariablesReference: scopes.Body.Scopes[0].VariablesReference}})
		found := false
		for _, v := range vars.Body.Variables {
			found = found || v.Name == "amount" && v.Value == "10"
		}
		if !found {
			t.Errorf("Transfer's arguments lack amount = 10: %+v", vars.Body.Variables)
		}
		dapDo[*godap.ContinueResponse](t, c, &godap.ContinueRequest{Request: daptest.Request("continue"), Arguments: godap.ContinueArguments{ThreadId: 2}})
		dapStopped(t, c, "breakpoint", 3)
		dapDo[*godap.ContinueResponse](t, c, &godap.ContinueRequest{Request: daptest.Request("continue"), Arguments: godap.ContinueArguments{ThreadId: 3}})
		e = dapStopped(t, c, "exception", 3)
		if !strings.HasPrefix(e.Body.Text, "deadlock: ") {
			t.Errorf("the exception stop says %q", e.Body.Text)
		}
		info := dapDo[*godap.ExceptionInfoResponse](t, c, &godap.ExceptionInfoRequest{Request: daptest.Request("exceptionInfo"), Arguments: godap.ExceptionInfoArguments{ThreadId: 3}})
		if info.Body.ExceptionId != "deadlock" || info.Body.Details == nil || !strings.Contains(info.Body.Details.StackTrace, "thread 2 waits in Mutex.Lock for to.mu") {
			t.Errorf("exception info %+v", info.Body)
		}
		dapDo[*godap.DisconnectResponse](t, c, &godap.DisconnectRequest{Request: daptest.Request("disconnect"), Arguments: &godap.DisconnectArguments{TerminateDebuggee: true}})
		select {
		case code := <-done:
			// Its standard error logs the requests it refused.
			if code != cli.ExitClean || strings.TrimSpace(errb.String()) != "stdbg dap: launch: "+clirun.Example("deadly-embrace.c")+" is not a Go package: stdbg dap serves Go targets; for C and C++ use stdbg replay --gdb" {
				t.Errorf("stdbg dap: exit %d\n%s", code, errb.String())
			}
		case <-time.After(dapWait):
			t.Fatal("stdbg dap still runs after the disconnect")
		}
	})

	t.Run("loopback port, a corpus entry", func(t *testing.T) {
		out, errs, code := clirun.Stdbg(t, "find", "--no-save=false", "--corpus", t.TempDir(), "-run", "TestTransfer$", filepath.Join(plain, "transfer"))
		m := regexp.MustCompile(`Saved (\S+\.json)`).FindStringSubmatch(out)
		if code != cli.ExitBug || m == nil {
			t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
		}
		pr, pw := io.Pipe()
		var errb strings.Builder
		done := make(chan int, 1)
		go func() {
			code := cli.Run([]string{"dap", "--listen", "127.0.0.1:0", "--wait", "5m", m[1]}, nil, pw, &errb)
			pw.Close()
			done <- code
		}()
		sc := bufio.NewScanner(pr)
		addr := ""
		listening := regexp.MustCompile(`^stdbg dap: listening at (127\.0\.0\.1:\d+) `)
		for addr == "" && sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addr = m[1]
			}
		}
		go io.Copy(io.Discard, pr)
		if addr == "" {
			t.Fatalf("stdbg dap does not say where it listens: %s", errb.String())
		}
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c := daptest.New(conn, conn, dapWait)
		dapDo[*godap.InitializeResponse](t, c, &godap.InitializeRequest{Request: daptest.Request("initialize")})
		// The command line's entry stands for the launch request's.
		dapDo[*godap.LaunchResponse](t, c, &godap.LaunchRequest{Request: daptest.Request("launch"), Arguments: launchArgs(t, map[string]any{"stopOnEntry": false})})
		dapDo[*godap.ConfigurationDoneResponse](t, c, &godap.ConfigurationDoneRequest{Request: daptest.Request("configurationDone")})
		dapStopped(t, c, "exception", 3)
		if threads := dapThreads(t, c); len(threads) != 3 {
			t.Errorf("threads at the deadlock: %v", threads)
		}
		out = c.Output()
		for _, want := range []string{"stdbg's replay of ", "*** DEADLOCK DETECTED ***", "step 7/7  thread 3  goroutine ", "end after step 7/7: deadlock: "} {
			if !strings.Contains(out, want) {
				t.Errorf("the output lacks %q:\n%s", want, out)
			}
		}
		// The client leaves without a word: the server ends.
		conn.Close()
		select {
		case code := <-done:
			if code != cli.ExitClean {
				t.Errorf("stdbg dap: exit %d after its client left\n%s", code, errb.String())
			}
		case <-time.After(dapWait):
			t.Fatal("stdbg dap still runs after its client left")
		}
	})
}

func TestDAPBadInput(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"listen on every interface", []string{"dap", "--listen", "0.0.0.0:4711"}, "not a loopback address"},
		{"no wait", []string{"dap", "--listen", "127.0.0.1:0", "--wait", "0s"}, "--wait must be positive"},
		{"two targets", []string{"dap", "a.json", "b.json"}, "one corpus entry"},
		{"not an entry", []string{"dap", "prog.c"}, "a .json file"},
		{"schedule without a package", []string{"dap", "--schedule", "1;2"}, "needs the Go package"},
		{"bad schedule", []string{"dap", "--schedule", "1;x", "./pkg"}, `--schedule "1;x"`},
		{"run without a schedule", []string{"dap", "--run", "TestX"}, "--run selects the test of a --schedule"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := clirun.Stdbg(t, tt.args...)
			if code != cli.ExitUsage || !strings.Contains(errs, tt.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 || out != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit %d and one line with %q", code, errs, out, cli.ExitUsage, tt.want)
			}
		})
	}
}

// A livelock is a lasso: under Delve, its stem and then its cycle --cycles
// times, after which the program would go round for ever. stdbg dap stops
// there as at a bug; replay --dlv steps there and hands over.
func TestDebugLasso(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program and runs Delve")
	}
	t.Parallel()
	needDlv(t)
	prog := filepath.Join(clirun.Root(), "examples", "go", "backoff-prog")
	out, errs, code := clirun.Stdbg(t, "find", "--memory=false", "--livelock", "--no-save=false", "--corpus", t.TempDir(), prog)
	m := regexp.MustCompile(`Saved (\S+\.json)`).FindStringSubmatch(out)
	if code != cli.ExitBug || m == nil || !strings.Contains(out, "Path = 1;1;1;2;3 (2;2;3;3)*") {
		t.Fatalf("find --livelock: exit %d\n%s\n%s", code, out, errs)
	}

	t.Run("dap", func(t *testing.T) {
		toServer, fromClient := io.Pipe()
		fromServer, toClient := io.Pipe()
		var errb strings.Builder
		done := make(chan int, 1)
		go func() {
			code := cli.Run([]string{"dap", m[1]}, toServer, toClient, &errb)
			toClient.Close()
			done <- code
		}()
		c := daptest.New(fromServer, fromClient, dapWait)
		dapDo[*godap.InitializeResponse](t, c, &godap.InitializeRequest{Request: daptest.Request("initialize")})
		dapDo[*godap.LaunchResponse](t, c, &godap.LaunchRequest{Request: daptest.Request("launch"), Arguments: launchArgs(t, map[string]any{"stopOnEntry": false})})
		dapDo[*godap.ConfigurationDoneResponse](t, c, &godap.ConfigurationDoneRequest{Request: daptest.Request("configurationDone")})
		e, err := c.Stopped()
		if err != nil {
			t.Fatal(err)
		}
		if e.Body.Reason != "exception" || e.Body.Text != "livelock: the cycle 2;2;3;3 ran 3 times after the stem 1;1;1;2;3, and would go on for ever" {
			t.Errorf("stopped %+v\n%s", e.Body, c.Output())
		}
		if !strings.Contains(c.Output(), "step 17/17  thread 3  goroutine ") {
			t.Errorf("the output lacks the last step of the cycles:\n%s", c.Output())
		}
		info := dapDo[*godap.ExceptionInfoResponse](t, c, &godap.ExceptionInfoRequest{Request: daptest.Request("exceptionInfo")})
		if info.Body.ExceptionId != "livelock" {
			t.Errorf("exception info %+v", info.Body)
		}
		dapDo[*godap.DisconnectResponse](t, c, &godap.DisconnectRequest{Request: daptest.Request("disconnect")})
		if code := <-done; code != cli.ExitClean {
			t.Errorf("stdbg dap: exit %d\n%s", code, errb.String())
		}
	})

	t.Run("replay --dlv", func(t *testing.T) {
		pr, pw := io.Pipe()
		var errb strings.Builder
		done := make(chan int, 1)
		go func() {
			code := cli.Run([]string{"replay", "--dlv", "--dlv-no-connect", "--cycles", "2", "--schedule", "1;1;1;2;3 (2;2;3;3)*", prog}, nil, pw, &errb)
			pw.Close()
			done <- code
		}()
		waitRE := regexp.MustCompile(`^Delve waits for a client .*: \S+ connect --init \S+ (\S+)$`)
		var all strings.Builder
		sc := bufio.NewScanner(pr)
		addr := ""
		for addr == "" && sc.Scan() {
			all.WriteString(sc.Text() + "\n")
			if m := waitRE.FindStringSubmatch(sc.Text()); m != nil {
				addr = m[1]
			}
		}
		go io.Copy(io.Discard, pr)
		if addr == "" {
			t.Fatalf("no hand-over:\n%s\n%s", all.String(), errb.String())
		}
		steps := parseDlvSteps(all.String())
		want := "1;1;1;2;3;2;2;3;3;2;2;3;3"
		var got []string
		for _, s := range steps {
			got = append(got, strconv.Itoa(s.thread))
		}
		if strings.Join(got, ";") != want || !strings.Contains(all.String(), "Stopped before step 13/13: thread 3") {
			t.Errorf("Delve stopped in threads %s, want %s, and before step 13:\n%s", strings.Join(got, ";"), want, all.String())
		}
		c := rpc2.NewClient(addr)
		if err := c.Disconnect(false); err != nil {
			t.Fatal(err)
		}
		select {
		case code := <-done:
			if code != cli.ExitClean {
				t.Errorf("replay --dlv: exit %d\n%s", code, errb.String())
			}
		case <-time.After(dapWait):
			t.Fatal("replay --dlv still waits after its client left")
		}
	})
}
