package dap_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	godap "github.com/google/go-dap"

	"github.com/stdbg/stdbg/debug/dlvbridge"
	"github.com/stdbg/stdbg/frontend/dap"
	"github.com/stdbg/stdbg/frontend/dap/daptest"
)

// lateDebugger is a replay whose program has ended at once, and whose last
// output reaches the server only once Delve has been ended, as the
// program's output does when it passes through Delve's standard output: a
// pipe read by a goroutine that delivers the rest when Delve is waited for.
type lateDebugger struct {
	out  dap.Output
	once sync.Once
}

func (d *lateDebugger) Run() (*dlvbridge.Stop, *dlvbridge.Exit, error) {
	return nil, &dlvbridge.Exit{Status: 1}, nil
}

func (d *lateDebugger) Client() *dlvbridge.Client { return nil }

func (d *lateDebugger) Close() {
	d.once.Do(func() { fmt.Fprint(d.out.Stdout, "*** DEADLOCK DETECTED ***\n") })
}

// TestOutputBeforeExited: everything the program wrote reaches the client
// before the exited event, however late the pipe that carries it is read
// (TestSession missed the program's last line beside two CPU hogs).
func TestOutputBeforeExited(t *testing.T) {
	l := dap.LauncherFunc(func(_ context.Context, args dap.LaunchArgs, out dap.Output) (*dap.Replay, error) {
		return &dap.Replay{Bridge: &lateDebugger{out: out}, Schedule: args.Schedule, Name: "prog"}, nil
	})
	c, _, done := pipeServer(t, &dap.Server{Launcher: l})
	do[*godap.InitializeResponse](t, c, &godap.InitializeRequest{Request: daptest.Request("initialize")})
	do[*godap.LaunchResponse](t, c, &godap.LaunchRequest{Request: daptest.Request("launch"),
		Arguments: []byte(`{"schedule": "1", "package": "./prog", "stopOnEntry": false}`)})
	if _, err := c.Event("initialized"); err != nil {
		t.Fatal(err)
	}
	do[*godap.ConfigurationDoneResponse](t, c, &godap.ConfigurationDoneRequest{Request: daptest.Request("configurationDone")})
	if _, err := c.Event("exited"); err != nil {
		t.Fatal(err)
	}
	if out := c.Output(); !strings.Contains(out, "DEADLOCK DETECTED") {
		t.Errorf("at the exited event, the output lacks the program's last line:\n%s", out)
	}
	do[*godap.DisconnectResponse](t, c, &godap.DisconnectRequest{Request: daptest.Request("disconnect")})
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
