package dap

import (
	"fmt"
	"path/filepath"
	"strings"

	godap "github.com/google/go-dap"

	"github.com/stdbg/stdbg/debug/dlvbridge"
)

// runMode says how far a run of the target goes.
type runMode int

const (
	// modeEntry runs to the first step and stops there (reason entry).
	modeEntry runMode = iota
	// modeStep runs the step about to run and stops before the next.
	modeStep
	// modeContinue runs step after step until a breakpoint, the bug,
	// a pause or the end of the program.
	modeContinue
)

// resumeRequest answers next, step in, step out (mode modeStep) and
// continue (modeContinue): the response goes at once, the stop comes as
// an event.
func (ss *session) resumeRequest(req *godap.Request, mode runMode) {
	ss.mu.Lock()
	switch {
	case ss.rep == nil || !ss.configured:
		ss.mu.Unlock()
		ss.fail(req, "nothing runs yet: launch, then configurationDone")
		return
	case ss.ended:
		ss.mu.Unlock()
		ss.fail(req, "the program has ended")
		return
	case ss.running.Load():
		ss.mu.Unlock()
		ss.fail(req, "the program is running")
		return
	}
	ss.mu.Unlock()
	if mode == modeContinue {
		ss.send(&godap.ContinueResponse{Response: response(req), Body: godap.ContinueResponseBody{AllThreadsContinued: true}})
	} else {
		ss.ok(req)
	}
	ss.start(mode)
}

// start runs the target in a goroutine of its own, which takes ss.mu for
// each step: requests are answered between two steps.
func (ss *session) start(mode runMode) {
	ss.running.Store(true)
	ss.pause.Store(false)
	done := make(chan struct{})
	ss.runDone = done
	go func() {
		defer close(done)
		defer ss.running.Store(false)
		for ss.runOnce(mode) {
		}
	}()
}

// runOnce runs the target to its next stop and reports whether the run
// goes on past it.
func (ss *session) runOnce(mode runMode) (more bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closing.Load() {
		return false
	}
	ss.forget()
	s, exit, err := ss.rep.Bridge.Run()
	switch {
	case err != nil:
		ss.ended, ss.stop = true, nil
		if !ss.closing.Load() {
			ss.output("console", fmt.Sprintf("stdbg: %v\n", err))
			ss.send(&godap.TerminatedEvent{Event: event("terminated")})
		}
		return false
	case exit != nil:
		ss.ended, ss.stop = true, nil
		// The program's output passes through Delve's standard output, a
		// pipe read by a goroutine of its own: ending Delve waits for that
		// goroutine, so everything the program wrote reaches the client
		// before the exited event. Nothing is left to debug after the end.
		ss.rep.Bridge.Close()
		ss.output("console", fmt.Sprintf("The program exited with status %d.\n", exit.Status))
		ss.send(&godap.ExitedEvent{Event: event("exited"), Body: godap.ExitedEventBody{ExitCode: exit.Status}})
		ss.send(&godap.TerminatedEvent{Event: event("terminated")})
		return false
	}
	ss.stop = s
	switch {
	case s.Breakpoint != 0:
		ss.stopThread = ss.threadOf(s)
		reason, text := ss.userBPs[s.Breakpoint], ""
		ids := []int{s.Breakpoint}
		if reason == "" {
			// One of Delve's own: an unrecovered panic, a fatal error.
			reason, text, ids = "exception", s.BreakpointName, nil
		}
		ss.stopped(reason, fmt.Sprintf("%s at %s:%d (during step %d/%d)", reason, filepath.Base(s.File), s.Line, s.Step, s.Steps), text, ids)
		return false
	case s.Over:
		ss.stopThread = ss.endThread()
		end := "the execution ended cleanly"
		if s.Outcome != "" {
			end, _, _ = strings.Cut(s.Outcome, "\n")
		}
		ss.output("console", fmt.Sprintf("end after step %d/%d: %s\n", s.Step, s.Steps, end))
		if s.Outcome != "" {
			// The bug: an exception stop, with stdbg's report.
			ss.stopped("exception", "after the last step: "+end, end, nil)
			return false
		}
		if mode == modeContinue {
			return true // on to the program's exit
		}
		ss.stopped("step", "after the last step: "+end, "", nil)
		return false
	}
	ss.stopThread, ss.lastThread = s.Thread, s.Thread
	ss.output("console", ss.stepLine(s)+"\n")
	switch {
	case ss.rep.Lasso != "" && s.Step > s.Steps && !ss.lassoShown:
		// The lasso's cycles are done: the program would go round
		// for ever.
		ss.lassoShown = true
		ss.stopped("exception", fmt.Sprintf("after the last step of the schedule (%d): %s", s.Steps, ss.rep.Lasso), ss.rep.Lasso, nil)
	case mode == modeEntry:
		ss.stopped("entry", ss.beforeStep(s), "", nil)
	case mode == modeStep:
		ss.stopped("step", ss.beforeStep(s), "", nil)
	case ss.pause.Swap(false):
		ss.stopped("pause", ss.beforeStep(s), "", nil)
	default:
		return true
	}
	return false
}

// stopped sends the stopped event of the current stop.
func (ss *session) stopped(reason, description, text string, breakpoints []int) {
	ss.send(&godap.StoppedEvent{Event: event("stopped"), Body: godap.StoppedEventBody{
		Reason: reason, Description: description, Text: text, ThreadId: ss.stopThread,
		AllThreadsStopped: true, HitBreakpointIds: breakpoints,
	}})
}

// step returns the report's step k (from 1), or false past its steps.
func (ss *session) step(k int) (call, where string, ok bool) {
	r := ss.rep.Report
	if r == nil || k < 1 || k > len(r.Steps) {
		return "", "", false
	}
	st := r.Steps[k-1]
	if st.Where.File != "" {
		where = fmt.Sprintf("%s:%d", filepath.Base(st.Where.File), st.Where.Line)
	}
	return st.Call, where, true
}

// beforeStep describes a stop before step s: "before step 3/7: thread 1,
// go -> thread 3".
func (ss *session) beforeStep(s *dlvbridge.Stop) string {
	d := fmt.Sprintf("before step %d/%d: thread %d", s.Step, s.Steps, s.Thread)
	if call, _, ok := ss.step(s.Step); ok {
		d += ", " + call
	}
	return d
}

// stepLine is the console's line for a stop before step s, as stdbg
// replay --dlv prints it.
func (ss *session) stepLine(s *dlvbridge.Stop) string {
	call, _, _ := ss.step(s.Step)
	where := "?"
	if s.File != "" {
		where = fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line)
	}
	return fmt.Sprintf("step %d/%d  thread %d  goroutine %d  %s  %s", s.Step, s.Steps, s.Thread, s.Goroutine, call, where)
}

// endThread is the thread an end stop shows: the one that failed, else
// the one that ran the last step.
func (ss *session) endThread() int {
	if r := ss.rep.Report; r != nil && r.Failure != nil && r.Failure.Thread > 0 {
		return r.Failure.Thread
	}
	return max(ss.lastThread, 1)
}

// exceptionInfo describes the bug the execution ended in.
func (ss *session) exceptionInfo(r *godap.ExceptionInfoRequest) {
	req := &r.Request
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.stop
	switch {
	case s != nil && s.Over && s.Outcome != "":
		kind, msg, _ := strings.Cut(s.Outcome, ": ")
		body := godap.ExceptionInfoResponseBody{ExceptionId: kind, Description: msg, BreakMode: "always"}
		if rep := ss.rep.Report; rep != nil {
			var b strings.Builder
			rep.WriteText(&b)
			body.Details = &godap.ExceptionDetails{Message: rep.Banner, TypeName: rep.Kind, StackTrace: b.String()}
		}
		ss.send(&godap.ExceptionInfoResponse{Response: response(req), Body: body})
	case s != nil && ss.rep.Lasso != "" && s.Step > s.Steps && s.Breakpoint == 0:
		kind, msg, _ := strings.Cut(ss.rep.Lasso, ": ")
		ss.send(&godap.ExceptionInfoResponse{Response: response(req), Body: godap.ExceptionInfoResponseBody{ExceptionId: kind, Description: msg, BreakMode: "always"}})
	case s != nil && s.Breakpoint < 0:
		ss.send(&godap.ExceptionInfoResponse{Response: response(req), Body: godap.ExceptionInfoResponseBody{
			ExceptionId: s.BreakpointName, Description: fmt.Sprintf("Delve stopped at %s in goroutine %d (%s:%d)", s.BreakpointName, s.Goroutine, filepath.Base(s.File), s.Line), BreakMode: "always"}})
	default:
		ss.fail(req, "the replay is not stopped on a bug")
	}
}
