package dap_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	godap "github.com/google/go-dap"

	"github.com/stdbg/stdbg/frontend/dap"
	"github.com/stdbg/stdbg/frontend/dap/daptest"
)

// A server whose launcher starts nothing: the client learns what the
// server supports, and a launch request gets the launcher's refusal. A
// real launcher (stdbg dap's) builds the target, starts Delve on it with
// dlvbridge.Start and returns the Replay.
func Example() {
	srv := &dap.Server{Launcher: dap.LauncherFunc(func(ctx context.Context, args dap.LaunchArgs, out dap.Output) (*dap.Replay, error) {
		fmt.Fprintln(out.Console, "asked to replay", args.Entry)
		return nil, fmt.Errorf("%s is a bug of a C program: use stdbg replay --gdb", args.Entry)
	})}
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	go srv.Serve(context.Background(), toServer, toClient)
	c := daptest.New(fromServer, fromClient, time.Minute)

	resp, _ := c.Do(&godap.InitializeRequest{Request: daptest.Request("initialize")})
	caps := resp.(*godap.InitializeResponse).Body
	fmt.Println("configurationDone:", caps.SupportsConfigurationDoneRequest, "function breakpoints:", caps.SupportsFunctionBreakpoints)
	_, err := c.Do(&godap.LaunchRequest{Request: daptest.Request("launch"),
		Arguments: []byte(`{"entry": "testdata/stdbg/deadly-embrace/deadlock-1f3a9c2e.json"}`)})
	fmt.Println(err)
	fmt.Print(strings.TrimSpace(c.Output()), "\n")
	c.Do(&godap.DisconnectRequest{Request: daptest.Request("disconnect")})
	// Output:
	// configurationDone: true function breakpoints: true
	// launch: the request failed: testdata/stdbg/deadly-embrace/deadlock-1f3a9c2e.json is a bug of a C program: use stdbg replay --gdb
	// asked to replay testdata/stdbg/deadly-embrace/deadlock-1f3a9c2e.json
}
