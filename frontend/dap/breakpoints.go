package dap

import (
	godap "github.com/google/go-dap"

	"github.com/stdbg/stdbg/debug/dlvbridge"
)

// setBreakpoints replaces the breakpoints of a source file by those of
// the request, in Delve. A request while the target runs waits for the
// step under way to end.
func (ss *session) setBreakpoints(r *godap.SetBreakpointsRequest) {
	req := &r.Request
	path := r.Arguments.Source.Path
	want := r.Arguments.Breakpoints
	if want == nil {
		for _, l := range r.Arguments.Lines {
			want = append(want, godap.SourceBreakpoint{Line: l})
		}
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	out := make([]godap.Breakpoint, len(want))
	if ss.rep == nil || ss.ended {
		for i, b := range want {
			out[i] = godap.Breakpoint{Line: b.Line, Source: &r.Arguments.Source, Message: "no program runs"}
		}
		ss.send(&godap.SetBreakpointsResponse{Response: response(req), Body: godap.SetBreakpointsResponseBody{Breakpoints: out}})
		return
	}
	c := ss.rep.Bridge.Client()
	for _, id := range ss.srcBPs[path] {
		c.ClearBreakpoint(id)
		delete(ss.userBPs, id)
	}
	ss.srcBPs[path] = nil
	for i, b := range want {
		bp, err := c.CreateBreakpoint(&dlvbridge.Breakpoint{File: path, Line: b.Line, Cond: b.Condition})
		if err != nil {
			out[i] = godap.Breakpoint{Line: b.Line, Source: &r.Arguments.Source, Message: err.Error()}
			continue
		}
		ss.srcBPs[path] = append(ss.srcBPs[path], bp.ID)
		ss.userBPs[bp.ID] = "breakpoint"
		out[i] = godap.Breakpoint{Id: bp.ID, Verified: true, Line: bp.Line, Source: &godap.Source{Name: r.Arguments.Source.Name, Path: bp.File}}
	}
	ss.send(&godap.SetBreakpointsResponse{Response: response(req), Body: godap.SetBreakpointsResponseBody{Breakpoints: out}})
}

// setFunctionBreakpoints replaces the breakpoints on functions by those
// of the request.
func (ss *session) setFunctionBreakpoints(r *godap.SetFunctionBreakpointsRequest) {
	req := &r.Request
	want := r.Arguments.Breakpoints
	ss.mu.Lock()
	defer ss.mu.Unlock()
	out := make([]godap.Breakpoint, len(want))
	if ss.rep == nil || ss.ended {
		for i := range want {
			out[i] = godap.Breakpoint{Message: "no program runs"}
		}
		ss.send(&godap.SetFunctionBreakpointsResponse{Response: response(req), Body: godap.SetFunctionBreakpointsResponseBody{Breakpoints: out}})
		return
	}
	c := ss.rep.Bridge.Client()
	for _, id := range ss.fnBPs {
		c.ClearBreakpoint(id)
		delete(ss.userBPs, id)
	}
	ss.fnBPs = nil
	for i, b := range want {
		bp, err := c.CreateBreakpoint(&dlvbridge.Breakpoint{FunctionName: b.Name, Cond: b.Condition})
		if err != nil {
			out[i] = godap.Breakpoint{Message: err.Error()}
			continue
		}
		ss.fnBPs = append(ss.fnBPs, bp.ID)
		ss.userBPs[bp.ID] = "function breakpoint"
		out[i] = godap.Breakpoint{Id: bp.ID, Verified: true, Line: bp.Line, Source: source(bp.File)}
	}
	ss.send(&godap.SetFunctionBreakpointsResponse{Response: response(req), Body: godap.SetFunctionBreakpointsResponseBody{Breakpoints: out}})
}
