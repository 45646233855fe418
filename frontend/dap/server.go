package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	godap "github.com/google/go-dap"

	"github.com/stdbg/stdbg/debug/dlvbridge"
)

// Server serves the Debug Adapter Protocol to one client.
type Server struct {
	// Launcher starts the replay a launch request asks for.
	Launcher Launcher
	// Defaults stand for a launch request's target when it names none
	// (the target given on stdbg dap's command line).
	Defaults LaunchArgs
	// Log receives the server's own diagnostics: the requests it could
	// not answer, a stream that broke off (nil: none).
	Log io.Writer
}

// closeWait bounds the wait for the replay to end once the client left:
// Delve and the target are killed within it.
const closeWait = 30 * time.Second

// Serve answers the client whose requests come on r, writing responses
// and events to w, until it disconnects, leaves (its stream ends) or ctx
// is done; the replay (Delve and the program) ends with it. The error
// says why the stream broke off (a message that is not the protocol's):
// nil for a disconnect request or a client that left.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ss := &session{srv: s, ctx: ctx, w: w}
	defer ss.end()
	go func() {
		<-ctx.Done()
		// A server told to stop ends the replay, and with it the
		// requests that wait on Delve.
		ss.closeReplay()
		if c, ok := r.(io.Closer); ok {
			c.Close()
		}
	}()
	in := bufio.NewReader(r)
	for {
		msg, err := godap.ReadProtocolMessage(in)
		var field *godap.DecodeProtocolMessageFieldError
		switch {
		case err == nil:
		case errors.As(err, &field) && field.SubType == "Request" && field.FieldName == "command":
			// A request stdbg does not know: say so, and go on.
			ss.failSeq(field.Seq, field.FieldValue, "stdbg dap does not support the %s request", field.FieldValue)
			continue
		case msg != nil:
			// A message of the protocol whose fields do not decode.
			if req, ok := msg.(godap.RequestMessage); ok {
				ss.fail(req.GetRequest(), "its arguments: %v", err)
			}
			continue
		case clientLeft(err) || ctx.Err() != nil:
			return nil
		default:
			s.logf("stdbg dap: reading from the client: %v", err)
			return fmt.Errorf("reading from the client: %w", err)
		}
		if err := ss.werr.Load(); err != nil {
			return fmt.Errorf("writing to the client: %v", err)
		}
		req, ok := msg.(godap.RequestMessage)
		if !ok {
			continue // a client's response or event: nothing asked for it
		}
		if quit := ss.handle(req); quit {
			return nil
		}
	}
}

// clientLeft reports whether a read error means that the client went
// away: the end of its stream, a connection it closed or reset.
func clientLeft(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.ErrClosedPipe) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET)
}

func (s *Server) logf(format string, args ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, format+"\n", args...)
	}
}

// session is the state of one client's session.
type session struct {
	srv *Server
	ctx context.Context

	wmu  sync.Mutex // guards w and seq
	w    io.Writer
	seq  int
	werr atomic.Value // the first error writing to the client

	// mu guards Delve and what is below it: a request that reads the
	// target waits for the step under way, if any, to end.
	mu          sync.Mutex
	rep         *Replay
	stop        *dlvbridge.Stop // where the replay stands; nil before the first stop
	stopThread  int             // the protocol's thread of the stop
	lastThread  int             // the thread of the last step stopped before
	lassoShown  bool            // the stop at the end of a lasso's cycles was made
	ended       bool            // the program ended, or Delve was lost
	configured  bool
	stopOnEntry bool
	refs        handles
	threads     []threadInfo // the threads at the stop, once asked
	srcBPs      map[string][]int
	fnBPs       []int
	userBPs     map[int]string // Delve's id -> "breakpoint" or "function breakpoint"

	// running is set while the target runs (next, continue); runDone
	// is closed when that run is over.
	running atomic.Bool
	runDone chan struct{}
	pause   atomic.Bool

	// bridge is the replay's, once launched; closing is set once the
	// session ends (closeReplay), which may come from another goroutine.
	bridge  atomic.Value // Debugger
	closing atomic.Bool
}

// send writes a message to the client, with the next sequence number.
func (ss *session) send(m godap.Message) {
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	ss.seq++
	switch v := m.(type) {
	case godap.ResponseMessage:
		v.GetResponse().Seq = ss.seq
	case godap.EventMessage:
		v.GetEvent().Seq = ss.seq
	}
	if ss.werr.Load() != nil {
		return
	}
	if err := godap.WriteProtocolMessage(ss.w, m); err != nil {
		ss.werr.Store(err)
	}
}

// response is the successful response to req, to fill in.
func response(req *godap.Request) godap.Response {
	return godap.Response{ProtocolMessage: godap.ProtocolMessage{Type: "response"}, RequestSeq: req.Seq, Success: true, Command: req.Command}
}

// event is an event named name, to fill in.
func event(name string) godap.Event {
	return godap.Event{ProtocolMessage: godap.ProtocolMessage{Type: "event"}, Event: name}
}

// ok sends the response to req that carries no body.
func (ss *session) ok(req *godap.Request) {
	ss.send(&godap.Response{ProtocolMessage: godap.ProtocolMessage{Type: "response"}, RequestSeq: req.Seq, Success: true, Command: req.Command})
}

// fail sends an error response to req.
func (ss *session) fail(req *godap.Request, format string, args ...any) {
	ss.failSeq(req.Seq, req.Command, format, args...)
}

func (ss *session) failSeq(seq int, command, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	ss.srv.logf("stdbg dap: %s: %s", command, msg)
	ss.send(&godap.ErrorResponse{
		Response: godap.Response{ProtocolMessage: godap.ProtocolMessage{Type: "response"}, RequestSeq: seq, Command: command, Message: msg},
		Body:     godap.ErrorResponseBody{Error: &godap.ErrorMessage{Id: 1, Format: msg, ShowUser: true}},
	})
}

// output sends text to the client as program or console output.
func (ss *session) output(category, text string) {
	ss.send(&godap.OutputEvent{Event: event("output"), Body: godap.OutputEventBody{Category: category, Output: text}})
}

// outputWriter is an io.Writer whose writes are output events.
type outputWriter struct {
	ss       *session
	category string
}

func (o outputWriter) Write(b []byte) (int, error) {
	o.ss.output(o.category, string(b))
	return len(b), nil
}

// handle answers one request; quit is set when the session is over.
func (ss *session) handle(m godap.RequestMessage) (quit bool) {
	req := m.GetRequest()
	switch r := m.(type) {
	case *godap.InitializeRequest:
		ss.send(&godap.InitializeResponse{Response: response(req), Body: godap.Capabilities{
			SupportsConfigurationDoneRequest: true,
			SupportsFunctionBreakpoints:      true,
			SupportsConditionalBreakpoints:   true,
			SupportsEvaluateForHovers:        true,
			SupportsExceptionInfoRequest:     true,
			SupportTerminateDebuggee:         true,
			SupportsTerminateRequest:         true,
		}})
	case *godap.LaunchRequest:
		ss.launch(r)
	case *godap.AttachRequest:
		ss.fail(req, "stdbg dap starts the replays it debugs: use a launch request (with \"entry\", or \"schedule\" and \"package\")")
	case *godap.SetBreakpointsRequest:
		ss.setBreakpoints(r)
	case *godap.SetFunctionBreakpointsRequest:
		ss.setFunctionBreakpoints(r)
	case *godap.SetExceptionBreakpointsRequest:
		// The execution's bug is always a stop; there are no filters.
		ss.send(&godap.SetExceptionBreakpointsResponse{Response: response(req)})
	case *godap.ConfigurationDoneRequest:
		ss.configurationDone(r)
	case *godap.ThreadsRequest:
		ss.threadsRequest(r)
	case *godap.StackTraceRequest:
		ss.stackTrace(r)
	case *godap.ScopesRequest:
		ss.scopes(r)
	case *godap.VariablesRequest:
		ss.variables(r)
	case *godap.EvaluateRequest:
		ss.evaluate(r)
	case *godap.ExceptionInfoRequest:
		ss.exceptionInfo(r)
	case *godap.NextRequest, *godap.StepInRequest, *godap.StepOutRequest:
		ss.resumeRequest(req, modeStep)
	case *godap.ContinueRequest:
		ss.resumeRequest(req, modeContinue)
	case *godap.PauseRequest:
		if ss.running.Load() {
			ss.pause.Store(true)
		}
		ss.ok(req)
	case *godap.TerminateRequest:
		ss.closeReplay()
		ss.ok(req)
		ss.send(&godap.TerminatedEvent{Event: event("terminated")})
	case *godap.DisconnectRequest:
		// The replay is stdbg's: it ends with the session, whatever
		// terminateDebuggee says.
		ss.closeReplay()
		ss.ok(req)
		return true
	default:
		ss.fail(req, "stdbg dap does not support the %s request", req.Command)
	}
	return false
}

// launch starts the replay the request asks for.
func (ss *session) launch(r *godap.LaunchRequest) {
	req := &r.Request
	var args LaunchArgs
	if len(r.Arguments) > 0 {
		if err := json.Unmarshal(r.Arguments, &args); err != nil {
			ss.fail(req, "the launch arguments: %v", err)
			return
		}
	}
	if !args.Named() {
		d := ss.srv.Defaults
		args.Entry, args.Schedule, args.Package, args.Program, args.Run = d.Entry, d.Schedule, d.Package, d.Program, d.Run
		if args.Args == nil {
			args.Args = d.Args
		}
	}
	if err := args.Check(); err != nil {
		ss.fail(req, "%v", err)
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.rep != nil {
		ss.fail(req, "a replay is already launched: one launch per session")
		return
	}
	if ss.srv.Launcher == nil {
		ss.fail(req, "the server has no launcher")
		return
	}
	out := Output{Stdout: outputWriter{ss, "stdout"}, Stderr: outputWriter{ss, "stderr"}, Console: outputWriter{ss, "console"}}
	rep, err := ss.srv.Launcher.Launch(ss.ctx, args, out)
	if err != nil {
		ss.fail(req, "%v", err)
		return
	}
	ss.rep = rep
	if rep.Bridge == nil {
		ss.rep = nil
		ss.fail(req, "the launcher started no debugger")
		return
	}
	ss.bridge.Store(rep.Bridge)
	if ss.closing.Load() {
		// The session ended while the replay started.
		rep.Bridge.Close()
		ss.fail(req, "the session ended")
		return
	}
	ss.stopOnEntry = args.StopOnEntry == nil || *args.StopOnEntry
	ss.srcBPs, ss.userBPs = map[string][]int{}, map[int]string{}
	if rep.Report != nil {
		var b strings.Builder
		rep.Report.WriteText(&b)
		ss.output("console", "stdbg's replay of "+rep.Name+":\n"+b.String())
	}
	ss.output("console", fmt.Sprintf("Delve replays %s in %s, one step at a time.\n", rep.Schedule, rep.Name))
	ss.send(&godap.LaunchResponse{Response: response(req)})
	ss.send(&godap.InitializedEvent{Event: event("initialized")})
}

// configurationDone starts the replay: to the first step (stopOnEntry),
// or on to the first breakpoint or the bug.
func (ss *session) configurationDone(r *godap.ConfigurationDoneRequest) {
	req := &r.Request
	ss.mu.Lock()
	if ss.rep == nil || ss.configured {
		ss.mu.Unlock()
		if ss.rep == nil {
			ss.fail(req, "nothing is launched")
		} else {
			ss.ok(req)
		}
		return
	}
	ss.configured = true
	mode := modeContinue
	if ss.stopOnEntry {
		mode = modeEntry
	}
	ss.mu.Unlock()
	ss.send(&godap.ConfigurationDoneResponse{Response: response(req)})
	ss.start(mode)
}

// closeReplay ends the replay: Delve and the program. It does not wait
// for ss.mu, so that it interrupts a step under way.
func (ss *session) closeReplay() {
	ss.closing.Store(true)
	if b, ok := ss.bridge.Load().(Debugger); ok {
		b.Close()
	}
}

// end closes the replay and waits (bounded) for a run under way to
// notice.
func (ss *session) end() {
	ss.closeReplay()
	if done := ss.runDone; done != nil {
		select {
		case <-done:
		case <-time.After(closeWait):
			ss.srv.logf("stdbg dap: the replay did not end within %v", closeWait)
		}
	}
}
