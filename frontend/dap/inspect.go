package dap

import (
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	godap "github.com/google/go-dap"

	"github.com/stdbg/stdbg/debug/dlvbridge"
)

// outsideBase numbers the protocol's threads of goroutines that are no
// thread of the check (stopped at a breakpoint): outsideBase + goroutine.
const outsideBase = 1 << 20

// stackDepth is the most frames a stack shows.
const stackDepth = 64

// loadConfig is how much of a variable Delve reads at once; a variable's
// children deeper than that are read when the client opens them.
var loadConfig = dlvbridge.LoadConfig{FollowPointers: true, MaxVariableRecurse: 1, MaxStringLen: 256, MaxArrayValues: 64, MaxStructFields: -1}

// maxValue bounds the text of a value.
const maxValue = 400

// handles are the frames and variable references of one stop; they are
// forgotten when the target runs.
type handles struct {
	frames []frameRef
	vars   []varRef
}

// frameRef is a frame shown to the client: Delve's frame index in a
// goroutine's stack, -1 for a goroutine that has not entered its
// function.
type frameRef struct {
	goroutine int64
	frame     int
}

// varRef is what a variables reference stands for.
type varRef struct {
	kind  varKind
	scope dlvbridge.EvalScope
	name  string
	v     *dlvbridge.Variable // kind valueRef: the variable whose children to show
}

type varKind int

const (
	localsRef varKind = iota // a frame's arguments and locals
	replayRef                // where the replay stands
	valueRef                 // a variable's children
)

func (h *handles) frame(f frameRef) int {
	h.frames = append(h.frames, f)
	return len(h.frames)
}

func (h *handles) variable(v varRef) int {
	h.vars = append(h.vars, v)
	return len(h.vars)
}

func (h *handles) frameOf(id int) (frameRef, bool) {
	if id < 1 || id > len(h.frames) {
		return frameRef{}, false
	}
	return h.frames[id-1], true
}

func (h *handles) varOf(id int) (varRef, bool) {
	if id < 1 || id > len(h.vars) {
		return varRef{}, false
	}
	return h.vars[id-1], true
}

// forget drops what the client was given about the last stop.
func (ss *session) forget() {
	ss.refs = handles{}
	ss.threads = nil
}

// stoppedOrFail reports whether the target can be read now, and answers
// req with why not otherwise. ss.mu must be held.
func (ss *session) stoppedOrFail(req *godap.Request) bool {
	switch {
	case ss.running.Load():
		ss.fail(req, "the program is running: stdbg dap answers between two stops")
	case ss.rep == nil:
		ss.fail(req, "nothing is launched")
	case ss.ended:
		ss.fail(req, "the program has ended")
	case ss.stop == nil:
		ss.fail(req, "the replay has not stopped yet")
	default:
		return true
	}
	return false
}

// threadInfo is a thread as the client sees it.
type threadInfo struct {
	id        int
	goroutine int64
	name      string
}

// threadOf is the protocol's thread of the goroutine a stop at a
// breakpoint is in.
func (ss *session) threadOf(s *dlvbridge.Stop) int {
	if s.Thread > 0 {
		return s.Thread
	}
	return outsideBase + int(s.Goroutine)
}

// goroutineOf returns the goroutine of the protocol's thread id at the
// current stop.
func (ss *session) goroutineOf(id int) (int64, bool) {
	s := ss.stop
	if s == nil {
		return 0, false
	}
	if id > outsideBase {
		return int64(id - outsideBase), true
	}
	if id < 1 || id > len(s.Goroutines) || s.Goroutines[id-1] == 0 {
		return 0, false
	}
	return s.Goroutines[id-1], true
}

// threadList lists the threads of the stop: stdbg's threads whose
// goroutines live, by number, and the goroutine outside the check the
// stop is in, if so.
func (ss *session) threadList() []threadInfo {
	if ss.threads != nil {
		return ss.threads
	}
	s := ss.stop
	var list []threadInfo
	if s != nil && !ss.ended {
		live := map[int64]bool{}
		gs, _, err := ss.rep.Bridge.Client().ListGoroutines(0, 0)
		for _, g := range gs {
			live[g.ID] = true
		}
		for i, g := range s.Goroutines {
			if g != 0 && (err != nil || live[g]) {
				list = append(list, threadInfo{id: i + 1, goroutine: g, name: ss.threadName(i+1, g)})
			}
		}
		if ss.stopThread > outsideBase {
			g := int64(ss.stopThread - outsideBase)
			list = append(list, threadInfo{id: ss.stopThread, goroutine: g, name: fmt.Sprintf("goroutine %d (outside the check)", g)})
		}
	}
	if len(list) == 0 {
		// A client needs a thread to show, even before the first stop.
		list = []threadInfo{{id: 1, name: "thread 1"}}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].id < list[j].id })
	ss.threads = list
	return list
}

// threadName names thread tid running in goroutine g: "thread 2
// (worker, started at main.go:12)". The function is the outermost of the
// user's on the goroutine's stack, or, before the goroutine entered it,
// the one stdbg's replay shows the thread starting in; the place is the go
// statement of stdbg's replay that created the thread.
func (ss *session) threadName(tid int, g int64) string {
	fn, started := "", ""
	if frames, err := ss.rep.Bridge.Client().Stacktrace(g, stackDepth); err == nil {
		for _, fr := range frames {
			if fr.Function != nil && dlvbridge.UserFunc(fr.Function.Name()) {
				fn = fr.Function.Name()
			}
		}
	}
	if r := ss.rep.Report; r != nil {
		suffix := fmt.Sprintf("-> thread %d", tid)
		for _, st := range r.Steps {
			if started == "" && strings.HasSuffix(st.Call, suffix) && st.Where.File != "" {
				started = fmt.Sprintf("%s:%d", filepath.Base(st.Where.File), st.Where.Line)
			}
			if fn == "" && st.Thread == tid && st.Where.Func != "" {
				fn = st.Where.Func
			}
		}
	}
	var parts []string
	if fn != "" {
		parts = append(parts, shortFunc(fn))
	}
	if started != "" {
		parts = append(parts, "started at "+started)
	}
	if len(parts) == 0 {
		return fmt.Sprintf("thread %d", tid)
	}
	return fmt.Sprintf("thread %d (%s)", tid, strings.Join(parts, ", "))
}

// shortFunc drops the package path of a function's name:
// "example.com/bank.TestCrossed.func1" is "TestCrossed.func1".
func shortFunc(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexByte(name, '.'); i >= 0 && i+1 < len(name) {
		name = name[i+1:]
	}
	return name
}

func (ss *session) threadsRequest(r *godap.ThreadsRequest) {
	ss.mu.Lock()
	var list []threadInfo
	if ss.running.Load() {
		list = ss.threads // as they were at the last stop
	} else {
		list = ss.threadList()
	}
	ss.mu.Unlock()
	if len(list) == 0 {
		list = []threadInfo{{id: 1, name: "thread 1"}}
	}
	out := make([]godap.Thread, len(list))
	for i, t := range list {
		out[i] = godap.Thread{Id: t.id, Name: t.name}
	}
	ss.send(&godap.ThreadsResponse{Response: response(&r.Request), Body: godap.ThreadsResponseBody{Threads: out}})
}

// stackTrace shows a thread's stack from its innermost frame of the
// user's: the frames of sthread's scheduler above it, where the thread
// waits for its turn, are left out; frames of the runtime, sthread and
// the testing package below it are shown subtle.
func (ss *session) stackTrace(r *godap.StackTraceRequest) {
	req := &r.Request
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.stoppedOrFail(req) {
		return
	}
	tid := r.Arguments.ThreadId
	g, ok := ss.goroutineOf(tid)
	if !ok {
		ss.fail(req, "no thread %d at this stop", tid)
		return
	}
	frames, err := ss.rep.Bridge.Client().Stacktrace(g, stackDepth)
	if err != nil {
		ss.fail(req, "the stack of thread %d (goroutine %d): %v", tid, g, err)
		return
	}
	var out []godap.StackFrame
	first := dlvbridge.UserFrame(frames)
	if first < 0 {
		s := ss.stop
		if tid == ss.stopThread && s.File != "" && !s.Over {
			// A goroutine that has not entered its function yet (or
			// is about to return): shown at its function.
			out = append(out, godap.StackFrame{Id: ss.refs.frame(frameRef{goroutine: g, frame: -1}), Name: s.Func,
				Source: source(s.File), Line: s.Line, Column: 1})
		}
		first = 0
	}
	for i := first; i < len(frames); i++ {
		fr := frames[i]
		name := "?"
		if fr.Function != nil {
			name = fr.Function.Name()
		}
		f := godap.StackFrame{Id: ss.refs.frame(frameRef{goroutine: g, frame: i}), Name: name, Source: source(fr.File), Line: fr.Line, Column: 1}
		if !dlvbridge.UserFunc(name) {
			f.PresentationHint = "subtle"
		}
		out = append(out, f)
	}
	total := len(out)
	if start := r.Arguments.StartFrame; start > 0 {
		out = out[min(start, len(out)):]
	}
	if n := r.Arguments.Levels; n > 0 && n < len(out) {
		out = out[:n]
	}
	ss.send(&godap.StackTraceResponse{Response: response(req), Body: godap.StackTraceResponseBody{StackFrames: out, TotalFrames: total}})
}

// source is the protocol's source of a file ("" for none).
func source(file string) *godap.Source {
	if file == "" {
		return nil
	}
	return &godap.Source{Name: filepath.Base(file), Path: file}
}

func (ss *session) scopes(r *godap.ScopesRequest) {
	req := &r.Request
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.stoppedOrFail(req) {
		return
	}
	f, ok := ss.refs.frameOf(r.Arguments.FrameId)
	if !ok {
		ss.fail(req, "no frame %d at this stop", r.Arguments.FrameId)
		return
	}
	scope := dlvbridge.EvalScope{GoroutineID: f.goroutine, Frame: f.frame}
	var scopes []godap.Scope
	if f.frame >= 0 {
		scopes = append(scopes, godap.Scope{Name: "Locals", PresentationHint: "locals",
			VariablesReference: ss.refs.variable(varRef{kind: localsRef, scope: scope})})
	}
	scopes = append(scopes, godap.Scope{Name: "Replay",
		VariablesReference: ss.refs.variable(varRef{kind: replayRef})})
	ss.send(&godap.ScopesResponse{Response: response(req), Body: godap.ScopesResponseBody{Scopes: scopes}})
}

func (ss *session) variables(r *godap.VariablesRequest) {
	req := &r.Request
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.stoppedOrFail(req) {
		return
	}
	ref, ok := ss.refs.varOf(r.Arguments.VariablesReference)
	if !ok {
		ss.fail(req, "no variables reference %d at this stop", r.Arguments.VariablesReference)
		return
	}
	var out []godap.Variable
	var err error
	switch ref.kind {
	case localsRef:
		out, err = ss.locals(ref.scope)
	case replayRef:
		out = ss.replayVars()
	case valueRef:
		out, err = ss.children(ref)
	}
	if err != nil {
		ss.fail(req, "%v", err)
		return
	}
	if out == nil {
		out = []godap.Variable{}
	}
	ss.send(&godap.VariablesResponse{Response: response(req), Body: godap.VariablesResponseBody{Variables: out}})
}

// locals are a frame's arguments, then its local variables.
func (ss *session) locals(scope dlvbridge.EvalScope) ([]godap.Variable, error) {
	c := ss.rep.Bridge.Client()
	args, err := c.ListFunctionArgs(scope, loadConfig)
	if err != nil {
		return nil, fmt.Errorf("the arguments of frame %d of goroutine %d: %w", scope.Frame, scope.GoroutineID, err)
	}
	locals, err := c.ListLocalVariables(scope, loadConfig)
	if err != nil {
		return nil, fmt.Errorf("the locals of frame %d of goroutine %d: %w", scope.Frame, scope.GoroutineID, err)
	}
	var out []godap.Variable
	for _, vs := range [][]dlvbridge.Variable{args, locals} {
		for i := range vs {
			out = append(out, ss.variable(scope, &vs[i], vs[i].Name))
		}
	}
	return out, nil
}

// replayVars say where the replay stands.
func (ss *session) replayVars() []godap.Variable {
	s := ss.stop
	str := func(name, value string) godap.Variable {
		return godap.Variable{Name: name, Value: value, Type: "string"}
	}
	out := []godap.Variable{str("schedule", ss.rep.Schedule)}
	switch {
	case s.Over:
		end := "the execution ended cleanly"
		if s.Outcome != "" {
			end, _, _ = strings.Cut(s.Outcome, "\n")
		}
		out = append(out, str("step", fmt.Sprintf("after the last, %d of %d", s.Step, s.Steps)), str("end", end))
	case s.Breakpoint != 0:
		out = append(out, str("step", fmt.Sprintf("%d of %d, under way", s.Step, s.Steps)))
	default:
		out = append(out, str("step", fmt.Sprintf("%d of %d, about to run", s.Step, s.Steps)), str("thread", fmt.Sprint(s.Thread)))
		if call, where, ok := ss.step(s.Step); ok {
			out = append(out, str("operation", call), str("at", where))
		}
	}
	if r := ss.rep.Report; r != nil && r.Bug {
		out = append(out, str("bug", strings.TrimSpace(r.Banner+" "+r.Message)))
	}
	return out
}

// variable turns a variable Delve read into the protocol's, with a
// reference to its children if it has any.
func (ss *session) variable(scope dlvbridge.EvalScope, v *dlvbridge.Variable, name string) godap.Variable {
	out := godap.Variable{Name: name, Value: value(v), Type: v.Type}
	if expandable(v) {
		out.VariablesReference = ss.refs.variable(varRef{kind: valueRef, scope: scope, name: name, v: v})
		switch v.Kind {
		case reflect.Slice, reflect.Array, reflect.Map:
			out.IndexedVariables = int(v.Len)
		}
	}
	return out
}

// value is the text of a variable's value, cut to maxValue bytes.
func value(v *dlvbridge.Variable) string {
	s := v.String()
	if len(s) > maxValue {
		s = s[:maxValue] + "..."
	}
	return s
}

// expandable reports whether a variable has children to show.
func expandable(v *dlvbridge.Variable) bool {
	switch v.Kind {
	case reflect.Struct:
		return v.Len > 0 || len(v.Children) > 0
	case reflect.Array, reflect.Slice, reflect.Map:
		return v.Len > 0
	case reflect.Pointer:
		if len(v.Children) == 0 {
			return v.Addr != 0 // not read yet
		}
		return v.Children[0].Addr != 0 && v.Children[0].Kind != reflect.Invalid
	case reflect.Interface, reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128:
		return len(v.Children) > 0 && v.Children[0].Kind != reflect.Invalid
	}
	return false
}

// children lists the children of a variable, reading them from the
// target if Delve left them out (too deep).
func (ss *session) children(ref varRef) ([]godap.Variable, error) {
	v := ref.v
	if len(v.Children) == 0 && v.Addr != 0 {
		expr := fmt.Sprintf("*(*%q)(%#x)", v.Type, v.Addr)
		lv, err := ss.rep.Bridge.Client().EvalVariable(ref.scope, expr, loadConfig)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", ref.name, err)
		}
		v = lv
	}
	var out []godap.Variable
	switch v.Kind {
	case reflect.Map:
		for i := 0; i+1 < len(v.Children); i += 2 {
			out = append(out, ss.variable(ref.scope, &v.Children[i+1], value(&v.Children[i])))
		}
	case reflect.Array, reflect.Slice:
		for i := range v.Children {
			out = append(out, ss.variable(ref.scope, &v.Children[i], fmt.Sprintf("[%d]", i)))
		}
	case reflect.Pointer:
		for i := range v.Children {
			out = append(out, ss.variable(ref.scope, &v.Children[i], "*"+ref.name))
		}
	default:
		for i := range v.Children {
			name := v.Children[i].Name
			if name == "" {
				name = fmt.Sprintf("[%d]", i)
			}
			out = append(out, ss.variable(ref.scope, &v.Children[i], name))
		}
	}
	return out, nil
}

// evaluate evaluates an expression in a frame (the stop's frame of the
// user's when the request names none).
func (ss *session) evaluate(r *godap.EvaluateRequest) {
	req := &r.Request
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.stoppedOrFail(req) {
		return
	}
	var scope dlvbridge.EvalScope
	if id := r.Arguments.FrameId; id != 0 {
		f, ok := ss.refs.frameOf(id)
		if !ok {
			ss.fail(req, "no frame %d at this stop", id)
			return
		}
		scope = dlvbridge.EvalScope{GoroutineID: f.goroutine, Frame: max(f.frame, 0)}
	} else {
		g, ok := ss.goroutineOf(ss.stopThread)
		if !ok {
			g = -1
		}
		scope = dlvbridge.EvalScope{GoroutineID: g, Frame: max(ss.stop.Frame, 0)}
	}
	expr := strings.TrimSpace(r.Arguments.Expression)
	v, err := ss.rep.Bridge.Client().EvalVariable(scope, expr, loadConfig)
	if err != nil {
		ss.fail(req, "%v", err)
		return
	}
	dv := ss.variable(scope, v, expr)
	ss.send(&godap.EvaluateResponse{Response: response(req), Body: godap.EvaluateResponseBody{
		Result: dv.Value, Type: dv.Type, VariablesReference: dv.VariablesReference, IndexedVariables: dv.IndexedVariables}})
}
