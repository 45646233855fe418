// Package report turns a failing (or clean) execution into what the user
// reads: the paper-style banner and Path line, every step with its thread,
// the call as written, the objects by name, the source location and line,
// who waits for what, the failure's stack, statistics and how to replay it.
// It renders text and JSON from the same Report value.
package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/symbolize"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// Symbols resolves the addresses a runtime reports.
type Symbols interface {
	// Return symbolizes a return address.
	Return(pc uint64) symbolize.Frame
	// Exact symbolizes the address of an instruction (a crash).
	Exact(pc uint64) symbolize.Frame
	// Data names the global variable containing addr.
	Data(addr uint64) (string, bool)
}

// Location is a place in the user's source.
type Location struct {
	Func   string `json:"func,omitempty"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Source string `json:"source,omitempty"` // the text of the line, trimmed
}

// Short renders "file.c:12", or the function name when no line is known.
func (l Location) Short() string {
	if l.File != "" && l.Line > 0 {
		return baseName(l.File) + ":" + fmt.Sprint(l.Line)
	}
	if l.Func != "" {
		return l.Func
	}
	return "?"
}

// Step is one transition of the trace.
type Step struct {
	N      int      `json:"step"`
	Thread int      `json:"thread"`
	Choice *int     `json:"choice,omitempty"`
	Call   string   `json:"call"`
	Where  Location `json:"where"`
	// Props are the program's propositions before the step ("r=1 cs=0"),
	// in reports of liveness violations.
	Props string `json:"props,omitempty"`
}

// Wait says why a thread could not go on.
type Wait struct {
	Thread int      `json:"thread"`
	Text   string   `json:"text"` // "waits for second (held by thread 2)"
	Where  Location `json:"where"`
	// Started is where the thread was created (absent for thread 1).
	Started *Location `json:"started,omitempty"`
	// Holders are the threads holding what it waits for, when known.
	Holders []int `json:"holders,omitempty"`
}

// Frame is one frame of a stack.
type Frame struct {
	Func   string `json:"func,omitempty"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Module string `json:"module,omitempty"`
	User   bool   `json:"user"`
}

// Stats summarises an exploration.
type Stats struct {
	Executions  int64   `json:"executions"`
	Transitions int64   `json:"transitions"`
	States      int64   `json:"states"`
	MaxDepthHit int64   `json:"max_depth_reached"`
	Seconds     float64 `json:"seconds"`
	// Visited and Revisits count the distinct program states of a stateful
	// search (--visited) and the executions it cut at a state already seen.
	Visited  int64 `json:"visited_states,omitempty"`
	Revisits int64 `json:"revisits,omitempty"`
}

// Report is everything shown about one outcome.
type Report struct {
	Kind     string   `json:"kind"`
	Bug      bool     `json:"bug"`
	Banner   string   `json:"banner"`
	Message  string   `json:"message"`
	Path     string   `json:"path"`
	Steps    []Step   `json:"steps"`
	Waits    []Wait   `json:"waits,omitempty"`
	Failure  *Where   `json:"failure,omitempty"`
	Stack    []Frame  `json:"stack,omitempty"`
	Replay   string   `json:"replay,omitempty"`
	Notes    []string `json:"notes,omitempty"`
	Executed string   `json:"executed,omitempty"` // replay: the schedule really run, tail included
	// Preemptions counts the switches away from a thread that could have
	// gone on.
	Preemptions int `json:"preemptions"`
	// Minimised says how the schedule was shrunk, when it was.
	Minimised *Minimisation `json:"minimised,omitempty"`
	// Saved is the corpus entry holding the bug; AlreadySaved is set when
	// it was there before.
	Saved        string `json:"saved,omitempty"`
	AlreadySaved bool   `json:"already_saved,omitempty"`
	// Cycle, for a livelock or a violated liveness property, is the cycle
	// of the lasso: Path leads to a state from which Cycle returns to it
	// forever. Its steps are the last ones of Steps, from step CycleStart.
	Cycle      string `json:"cycle,omitempty"`
	CycleStart int    `json:"cycle_start,omitempty"`
	// FoundBy names the strategy that found the bug, when the search had
	// several (the portfolio's members): "PCT (depth 3, seed 7)".
	FoundBy string `json:"found_by,omitempty"`
	// Stalls are the delays of goroutines the execution needs: virtual
	// time passed (a timer fired) while each could have run and did not.
	Stalls []Stall `json:"stalls,omitempty"`
}

// Stall is a delay of a goroutine that an execution needs: the goroutine
// could run from where it was (After: its previous step, or its go
// statement) and ran its next operation (At, at step Step; 0: it had not
// run when the execution ended) only once virtual time had passed by Nanos:
// a real run shows the same only when its scheduler keeps the goroutine
// waiting that long (a loaded machine, a long GC pause). The max-stall
// setting bounds it.
type Stall struct {
	Thread int      `json:"thread"`
	Nanos  int64    `json:"ns"`
	Start  bool     `json:"start,omitempty"` // the goroutine had not started: After is its go statement
	After  Location `json:"after"`
	At     Location `json:"at"`
	Step   int      `json:"step,omitempty"`
}

// Text renders the stall in a line: "needs thread 2 to stall >= 10ms
// between a.go:12 and a.go:13".
func (s Stall) Text() string {
	d := time.Duration(s.Nanos)
	if s.Start {
		return fmt.Sprintf("needs thread %d to stall >= %v before it starts (go statement at %s)", s.Thread, d, s.After.Short())
	}
	if a, b := s.After.Short(), s.At.Short(); a != b {
		return fmt.Sprintf("needs thread %d to stall >= %v between %s and %s", s.Thread, d, a, b)
	}
	return fmt.Sprintf("needs thread %d to stall >= %v at %s", s.Thread, d, s.At.Short())
}

// Minimisation records how a bug's schedule was shrunk.
type Minimisation struct {
	Original        string `json:"original"`
	FromLength      int    `json:"from_length"`
	FromPreemptions int    `json:"from_preemptions"`
	Length          int    `json:"length"`
	Preemptions     int    `json:"preemptions"`
	Proven          bool   `json:"proven_minimal"`
	Executions      int64  `json:"executions"`
	// LowerLength and LowerPreemptions are what was proven when the
	// result is not proven minimal: no schedule of the bug is shorter, and
	// none as long has fewer preemptions (0 and 0: nothing). Unproven
	// says why the proof stopped.
	LowerLength      int    `json:"lower_length,omitempty"`
	LowerPreemptions int    `json:"lower_preemptions,omitempty"`
	Unproven         string `json:"unproven,omitempty"`
}

// Where is the place a failure happened.
type Where struct {
	Thread int      `json:"thread"`
	Where  Location `json:"where"`
}

// Banner returns the headline for an outcome kind.
func Banner(k search.Kind) string {
	switch k {
	case search.Deadlock:
		return "*** DEADLOCK DETECTED ***"
	case search.Leak:
		return "*** THREADS LEAKED: BLOCKED FOREVER AT EXIT ***"
	case search.AssertionFailure:
		return "*** PROPERTY NOT VALID: ASSERTION FAILED ***"
	case search.Crash:
		return "*** CRASH IN THE PROGRAM ***"
	case search.Misuse:
		return "*** MISUSE OF THE THREAD API ***"
	case search.Livelock:
		return "*** LIVELOCK: NO PROGRESS ***"
	case search.Timeout:
		return "*** TRANSITION TIMEOUT ***"
	case search.Diverged:
		return "*** SCHEDULE DIVERGED ***"
	case search.Liveness:
		return "*** LIVENESS PROPERTY NOT VALID ***"
	case search.DataRace:
		return "*** DATA RACE ***"
	}
	return "No property violation found."
}

// Build makes the report of an execution that ended with o (which may be
// nil when it was cut by the depth bound).
func Build(e *executor.Execution, o *search.Outcome, syms Symbols) *Report {
	b := &builder{syms: syms, names: map[uint64]string{}, counts: map[string]int{}}
	r := &Report{Path: e.Schedule().String()}
	if o != nil {
		r.Kind = o.Kind.String()
		r.Bug = o.Kind.IsBug()
		r.Banner = Banner(o.Kind)
		r.Message = o.Message
	} else {
		r.Kind = "max-depth"
		r.Banner = "/!\\ Max depth reached ! /!\\"
		r.Message = "the execution reached the depth bound"
	}
	// Where every step and wait is first: Go objects are named by the
	// expressions on those lines.
	trace := e.Trace()
	wheres := make([]Location, len(trace))
	var uses []exprUse
	for i, st := range trace {
		wheres[i] = b.location(st.Frames, false)
		uses = append(uses, exprUse{st.Op, wheres[i].Source})
	}
	blocked := e.BlockedThreads()
	waitWheres := make([]Location, len(blocked))
	for i, bl := range blocked {
		waitWheres[i] = b.location(bl.Frames, false)
		uses = append(uses, exprUse{bl.Op, waitWheres[i].Source})
	}
	b.exprNames(uses)
	for i, st := range trace {
		b.expr = callExpr(st.Op, wheres[i].Source)
		s := Step{N: i + 1, Thread: st.Thread, Call: b.call(st.Op, st.Result, st.Frames, st.Operand), Where: wheres[i]}
		if st.Choice != schedule.NoChoice {
			c := st.Choice
			s.Choice = &c
		}
		r.Steps = append(r.Steps, s)
		if st.Preempts {
			r.Preemptions++
		}
	}
	started := map[int]Location{} // where each thread was created
	for i, st := range e.Trace() {
		if st.Op.Kind == syncmodel.ThreadCreate && st.Result.NewThread > 0 {
			started[st.Result.NewThread] = r.Steps[i].Where
		}
	}
	for i, bl := range blocked {
		b.expr = callExpr(bl.Op, waitWheres[i].Source)
		w := Wait{Thread: bl.Thread, Text: b.wait(bl), Where: waitWheres[i], Holders: bl.Wait.Holders}
		if loc, ok := started[bl.Thread]; ok {
			w.Started = &loc
			w.Text += " (started at " + loc.Short() + ")"
		}
		r.Waits = append(r.Waits, w)
	}
	if f := e.Failure(); f != nil {
		frames := make([]uint64, len(f.Frames))
		copy(frames, f.Frames)
		exact := f.Kind == 2 // a signal: frame 0 is the faulting instruction
		w := &Where{Thread: f.Tid, Where: b.location(frames, exact)}
		if f.File != "" && f.Line > 0 {
			w.Where = Location{Func: f.Func, File: f.File, Line: f.Line}
			if src, ok := symbolize.SourceLine(f.File, f.Line); ok {
				w.Where.Source = src
			}
		}
		r.Failure = w
		r.Stack = b.stack(frames, exact)
	}
	b.expr = ""
	r.Message = b.nameAddresses(r.Message)
	if o != nil && o.Kind == search.DataRace && strings.HasPrefix(r.Message, "WARNING: DATA RACE") {
		// An instrumented plain-Go test runs its body in lang.CheckTest.
		wrapped := strings.Contains(r.Message, stdbgRuntime+"/lang.CheckTest")
		for _, f := range r.Stack {
			wrapped = wrapped || strings.HasPrefix(f.Func, stdbgRuntime+"/lang.CheckTest")
		}
		r.Message = goRace(r.Message, started, moduleRoots{}.root, wrapped)
	}
	if t := e.TimedOut(); t != nil {
		r.Failure = &Where{Thread: t.Tid, Where: b.location(t.Frames, false)}
		r.Stack = b.stack(t.Frames, false)
	}
	r.Stalls = b.stalls(e, r)
	return r
}

// stalls returns the delays of goroutines execution e needs: those each
// of its steps ended (syncmodel.Result.Stall), then those of the
// goroutines that could still run when it ended.
func (b *builder) stalls(e *executor.Execution, r *Report) []Stall {
	trace := e.Trace()
	// before returns where thread t was before step i: its previous step,
	// or the go statement that made it (start).
	before := func(t, i int) (Location, bool) {
		for j := i - 1; j >= 0; j-- {
			if trace[j].Thread == t {
				return r.Steps[j].Where, false
			}
			if trace[j].Op.Kind == syncmodel.ThreadCreate && trace[j].Result.NewThread == t {
				return r.Steps[j].Where, true
			}
		}
		return Location{}, false
	}
	var out []Stall
	for i := range trace {
		st := &trace[i]
		if st.Result.Stall <= 0 || i >= len(r.Steps) {
			continue
		}
		after, start := before(st.Thread, i)
		out = append(out, Stall{Thread: st.Thread, Nanos: st.Result.Stall, Start: start && st.Op.Kind == syncmodel.ThreadStart,
			After: after, At: r.Steps[i].Where, Step: i + 1})
	}
	for _, s := range e.World().Stalls() {
		op, _ := e.World().Pending(s.Thread)
		after, start := before(s.Thread, len(trace))
		out = append(out, Stall{Thread: s.Thread, Nanos: s.At - s.Since, Start: start && op.Kind == syncmodel.ThreadStart,
			After: after, At: b.location(e.PendingFrames(s.Thread), false)})
	}
	return out
}

// nameAddresses replaces the addresses of named objects in a message (the
// model speaks of addresses) by their names.
func (b *builder) nameAddresses(msg string) string {
	for addr, name := range b.names {
		msg = strings.ReplaceAll(msg, fmt.Sprintf("%#x", addr), name)
	}
	return msg
}

type builder struct {
	syms   Symbols
	names  map[uint64]string
	counts map[string]int
	// ambiguous are the Go objects no one expression names (goexpr.go);
	// expr is the expression of the call being rendered.
	ambiguous map[uint64]bool
	expr      string
}

// frame symbolizes frame i of a stack: the first is exact for a crash.
func (b *builder) frame(frames []uint64, i int, exact bool) symbolize.Frame {
	if exact && i == 0 {
		return b.syms.Exact(frames[i])
	}
	return b.syms.Return(frames[i])
}

// location is the first frame in the user's code, or the first frame.
func (b *builder) location(frames []uint64, exact bool) Location {
	if len(frames) == 0 {
		return Location{}
	}
	first := b.frame(frames, 0, exact)
	pick := first
	for i := range frames {
		f := b.frame(frames, i, exact)
		if !symbolize.IsSystem(f) {
			pick = f
			break
		}
	}
	loc := Location{Func: pick.Func, File: pick.File, Line: pick.Line}
	if loc.File != "" && loc.Line > 0 {
		if src, ok := symbolize.SourceLine(loc.File, loc.Line); ok {
			loc.Source = src
		}
	}
	if loc.Func == "" && loc.File == "" {
		loc.Func = first.String()
	}
	return loc
}

func (b *builder) stack(frames []uint64, exact bool) []Frame {
	var out []Frame
	for i := range frames {
		f := b.frame(frames, i, exact)
		out = append(out, Frame{Func: f.Func, File: f.File, Line: f.Line, Module: baseName(f.Module), User: !symbolize.IsSystem(f)})
	}
	return out
}

// objKind is the family name of an object, for generated names.
func objKind(k syncmodel.Kind) string {
	if f := goFamily(k); f != "" {
		return f
	}
	switch {
	case k >= syncmodel.MutexInit && k <= syncmodel.MutexDestroy:
		return "mutex"
	case k >= syncmodel.CondInit && k <= syncmodel.CondDestroy:
		return "cond"
	case k >= syncmodel.SemInit && k <= syncmodel.SemDestroy:
		return "sem"
	case k >= syncmodel.RWInit && k <= syncmodel.RWDestroy:
		return "rwlock"
	case k >= syncmodel.BarrierInit && k <= syncmodel.BarrierDestroy:
		return "barrier"
	case k >= syncmodel.SpinInit && k <= syncmodel.SpinDestroy:
		return "spin"
	case k == syncmodel.OnceBegin || k == syncmodel.OnceEnd:
		return "once"
	}
	return "mem"
}

// name gives an object a readable name: its global variable, or a
// generated one (mutex#1, cond#2, ...) in order of first appearance.
func (b *builder) name(addr uint64, family string) string {
	if n, ok := b.names[addr]; ok {
		return n
	}
	n, ok := b.syms.Data(addr)
	if !ok {
		b.counts[family]++
		n = fmt.Sprintf("%s#%d", family, b.counts[family])
	}
	b.names[addr] = n
	return n
}

// pointee names the object at addr if the report named it already or the
// program's symbols do, without naming a new one.
func (b *builder) pointee(addr uint64) (string, bool) {
	if n, ok := b.names[addr]; ok {
		return n, true
	}
	return b.syms.Data(addr)
}

var errnoNames = map[int64]string{
	syncmodel.EPERM: "EPERM", syncmodel.EAGAIN: "EAGAIN", syncmodel.EBUSY: "EBUSY",
	syncmodel.EINVAL: "EINVAL", syncmodel.EDEADLK: "EDEADLK", syncmodel.ETIMEDOUT: "ETIMEDOUT",
}

// call renders the operation as the user wrote it.
func (b *builder) call(op syncmodel.Op, res syncmodel.Result, frames []uint64, opnd wire.Operand) string {
	if s, ok := b.goCall(op, res); ok {
		return s
	}
	api := op.API.String()
	if api == "" {
		api = op.Kind.String()
	}
	fam := objKind(op.Kind)
	switch op.Kind {
	case syncmodel.ThreadCreate:
		return fmt.Sprintf("%s -> thread %d", api, res.NewThread)
	case syncmodel.ThreadJoin, syncmodel.ThreadDetach:
		if op.Arg > 0 {
			return fmt.Sprintf("%s(thread %d)", api, op.Arg)
		}
		return api + "(unknown thread)"
	case syncmodel.ThreadStart:
		return "thread starts"
	case syncmodel.ThreadExit:
		if op.API == syncmodel.APIThreadReturn {
			return "thread returns"
		}
		return api
	case syncmodel.Exit:
		if op.API == syncmodel.APIMainReturn {
			return fmt.Sprintf("main returns %d", op.Arg)
		}
		if op.API == syncmodel.APIExec {
			return "exec: the program's image is replaced (its end)"
		}
		return fmt.Sprintf("%s(%d)", api, op.Arg)
	case syncmodel.Choose:
		return fmt.Sprintf("%s(%d) = %d", api, op.Arg, res.Code)
	case syncmodel.Yield, syncmodel.Sleep:
		if op.API == syncmodel.APIMemoryPoll {
			return fmt.Sprintf("polls &%s in a loop (only reads since its last step)", b.name(op.Obj, "mem"))
		}
		return api
	case syncmodel.Read, syncmodel.Write:
		switch op.API {
		case syncmodel.APICAtomicStore, syncmodel.APICAtomicRMW:
			if s, ok := operandCall(b.name(op.Obj, "mem"), int(op.Arg), opnd, b.pointee); ok {
				return s
			}
			fallthrough
		case syncmodel.APILoad, syncmodel.APIStore, syncmodel.APICAtomicLoad:
			// An access of an instrumented C program: the call on its
			// line says what it stores; the step, how much memory.
			return fmt.Sprintf("%s(&%s) (%s)", api, b.name(op.Obj, "mem"), count(int(op.Arg), "byte"))
		}
		return fmt.Sprintf("%s(&%s, %d)", api, b.name(op.Obj, "mem"), op.Arg)
	case syncmodel.CondWait:
		if res.Spurious {
			return fmt.Sprintf("%s(%s, %s) returns at once, unsignalled (spurious wake-up)", api, b.name(op.Obj, "cond"), b.name(op.Obj2, "mutex"))
		}
		return fmt.Sprintf("%s(%s, %s) releases %s", api, b.name(op.Obj, "cond"), b.name(op.Obj2, "mutex"), b.name(op.Obj2, "mutex"))
	case syncmodel.CondReacquire:
		s := fmt.Sprintf("%s(%s, %s) wakes up, relocks %s", api, b.name(op.Obj, "cond"), b.name(op.Obj2, "mutex"), b.name(op.Obj2, "mutex"))
		if res.Code == syncmodel.ETIMEDOUT {
			s = fmt.Sprintf("%s(%s, %s) times out, relocks %s", api, b.name(op.Obj, "cond"), b.name(op.Obj2, "mutex"), b.name(op.Obj2, "mutex"))
		}
		return s
	case syncmodel.BarrierLeave:
		return fmt.Sprintf("%s(%s) released", api, b.name(op.Obj, "barrier"))
	case syncmodel.OnceBegin:
		if res.Code == 1 {
			return fmt.Sprintf("%s(%s) runs the initialiser", api, b.name(op.Obj, "once"))
		}
		return fmt.Sprintf("%s(%s) already done", api, b.name(op.Obj, "once"))
	case syncmodel.OnceEnd:
		return fmt.Sprintf("%s(%s) initialiser done", api, b.name(op.Obj, "once"))
	case syncmodel.SemGetvalue:
		return fmt.Sprintf("%s(%s) = %d", api, b.name(op.Obj, "sem"), res.Code)
	}
	s := api
	if op.Obj != 0 && goFamily(op.Kind) != "" {
		s += "(" + b.goName(op.Obj, fam) + ")"
	} else if op.Obj != 0 {
		s += "(" + b.name(op.Obj, fam) + ")"
	} else {
		s += "()"
	}
	if res.Code != 0 {
		if n, ok := errnoNames[res.Code]; ok {
			s += " = " + n
		} else if op.Kind == syncmodel.BarrierWait && res.Code == syncmodel.BarrierSerial {
			s += " = PTHREAD_BARRIER_SERIAL_THREAD"
		}
	}
	return s
}

// wait renders why a blocked thread cannot go on.
func (b *builder) wait(bl executor.Blocked) string {
	if bl.Wait.What == "spin" {
		return b.spinWait(bl)
	}
	if s, ok := b.goWait(bl); ok {
		return s
	}
	w := bl.Wait
	holders := func() string {
		if len(w.Holders) == 0 {
			return ""
		}
		ids := make([]string, len(w.Holders))
		for i, h := range w.Holders {
			ids[i] = fmt.Sprint(h)
		}
		if len(ids) == 1 {
			return " (held by thread " + ids[0] + ")"
		}
		return " (held by threads " + strings.Join(ids, ", ") + ")"
	}
	switch bl.Op.Kind {
	case syncmodel.ThreadJoin:
		return fmt.Sprintf("waits in %s for thread %d to exit", bl.Op.API, bl.Op.Arg)
	case syncmodel.GoCondWake:
		if bl.Op.Obj2 == 0 {
			break
		}
		cond, mu := b.goName(bl.Op.Obj, "cond"), b.goName(bl.Op.Obj2, "mutex")
		if len(w.Holders) > 0 {
			return fmt.Sprintf("was signalled on %s but waits in %s to relock %s%s", cond, bl.Op.API, mu, holders())
		}
		return fmt.Sprintf("waits in %s on %s with %s released (never signalled)", bl.Op.API, cond, mu)
	case syncmodel.CondReacquire:
		if len(w.Holders) > 0 {
			return fmt.Sprintf("was signalled on %s but waits to relock %s%s", b.name(bl.Op.Obj, "cond"), b.name(bl.Op.Obj2, "mutex"), holders())
		}
		return fmt.Sprintf("waits on %s with %s released (never signalled)", b.name(bl.Op.Obj, "cond"), b.name(bl.Op.Obj2, "mutex"))
	}
	obj := ""
	if bl.Op.Obj != 0 {
		obj = b.name(bl.Op.Obj, objKind(bl.Op.Kind))
	}
	text := fmt.Sprintf("waits in %s for %s%s", bl.Op.API, obj, holders())
	if w.Detail != "" && len(w.Holders) == 0 {
		text += " (" + w.Detail + ")"
	} else if w.Detail != "" && strings.Contains(w.Detail, "finished") {
		text += ", which has finished"
	}
	return text
}

// spinWait says what a thread that spins for ever waits for: a write to
// what its loop read (syncmodel.World.Await).
func (b *builder) spinWait(bl executor.Blocked) string {
	api := bl.Op.API.String()
	if bl.Op.API == syncmodel.APINone {
		api = bl.Op.Kind.String()
	}
	if len(bl.Wait.Reads) == 0 {
		return fmt.Sprintf("spins in %s for ever: its loop reads nothing another thread writes", api)
	}
	names := make([]string, len(bl.Wait.Reads))
	for i, r := range bl.Wait.Reads {
		family := "mem"
		if !r.Mem() {
			family = objKind(bl.Op.Kind)
		}
		names[i] = b.name(r.Addr, family)
	}
	return fmt.Sprintf("spins in %s waiting for a write to %s, which no thread left can make", api, strings.Join(names, " or "))
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// FromStats converts search statistics.
func FromStats(s search.Stats) Stats {
	return Stats{Executions: s.Executions, Transitions: s.Transitions, States: s.States,
		MaxDepthHit: s.MaxDepthHit, Seconds: s.Elapsed.Seconds(), Visited: s.Visited, Revisits: s.Revisits}
}

// FormatStats renders the statistics line.
func FormatStats(s Stats) string {
	line := fmt.Sprintf("Executions = %d  Transitions = %d  States = %d  (%s)", s.Executions, s.Transitions,
		s.States, formatSeconds(s.Seconds))
	if s.Visited > 0 {
		line += fmt.Sprintf("\nVisited states = %d  Revisits = %d", s.Visited, s.Revisits)
	}
	return line
}

func formatSeconds(sec float64) string {
	d := time.Duration(sec * float64(time.Second))
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.2f s", sec)
	case d < time.Hour:
		return fmt.Sprintf("%.0f s", sec)
	}
	return d.Round(time.Second).String()
}

// Namer renders operations as reports do ("pthread_mutex_lock(first)",
// "Chan.Send(chan#1)"), naming each object the same way across all the
// calls made on it, as a drawing of many executions needs.
type Namer struct{ b *builder }

// NewNamer returns a namer resolving variables with syms (nil: objects
// get generated names).
func NewNamer(syms Symbols) *Namer {
	if syms == nil {
		syms = noSymbols{}
	}
	return &Namer{b: &builder{syms: syms, names: map[uint64]string{}, counts: map[string]int{}}}
}

// Call renders op, which returned res.
func (n *Namer) Call(op syncmodel.Op, res syncmodel.Result) string {
	return n.b.call(op, res, nil, wire.Operand{})
}

// noSymbols resolves nothing.
type noSymbols struct{}

func (noSymbols) Return(uint64) symbolize.Frame { return symbolize.Frame{} }
func (noSymbols) Exact(uint64) symbolize.Frame  { return symbolize.Frame{} }
func (noSymbols) Data(uint64) (string, bool)    { return "", false }

// String says how the schedule was shrunk, in one line: "Minimised from 9
// steps, 2 preemptions to 4 steps, 1 preemption (proven minimal, 57
// executions)".
//
// When it is not proven minimal, it says what was: "not proven minimal:
// budget spent; no schedule is shorter, none as long has fewer than 1
// preemption", or "at least 12 steps", or "no lower bound proven".
func (m *Minimisation) String() string {
	proven := "proven minimal"
	if !m.Proven {
		why := m.Unproven
		if why == "" {
			why = "budget spent"
		}
		var gap string
		switch {
		case m.LowerLength == m.Length && m.LowerLength > 0:
			gap = "no schedule is shorter, none as long has fewer than " + count(m.LowerPreemptions, "preemption")
		case m.LowerLength > 0:
			gap = "proven: at least " + count(m.LowerLength, "step")
		default:
			gap = "no lower bound proven"
		}
		proven = "not proven minimal: " + why + "; " + gap
	}
	return fmt.Sprintf("Minimised from %s, %s to %s, %s (%s, %d executions)",
		count(m.FromLength, "step"), count(m.FromPreemptions, "preemption"),
		count(m.Length, "step"), count(m.Preemptions, "preemption"), proven, m.Executions)
}

// count renders "1 step", "3 steps".
func count(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
