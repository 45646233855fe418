package oracle

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// Bug identity. Two bugs are the same when they have the same
// search.Outcome.Key: the search keeps one per key (Options.All), and the
// oracle compares the sets of keys. A C program's bugs have their own
// source lines; the Go interpreter's all come from the interpreter's few
// lines, so goExecutor rewrites each outcome's Where into the program's
// terms:
//
//   - an assertion or a crash: its number (the message the interpreter
//     gives it, "A3", "P4"); Go's panic of an operation (a send on a
//     closed channel): the panic and the site, as for a misuse;
//   - a misuse: the operation's API, the thread and the site it was at;
//   - a deadlock or a leak: every started, unfinished thread's site.
//
// Each is a function of the execution's final state, so two executions of
// one Mazurkiewicz trace give the same key, whatever their order.

// goExecutor gives the executions of an in-process Go program their
// bugs' identities in program terms.
type goExecutor struct {
	inner search.Executor
}

// Start implements search.Executor.
func (x *goExecutor) Start() (search.Execution, error) {
	e, err := x.inner.Start()
	if err != nil {
		return nil, err
	}
	return &goExecution{Execution: e, run: cur}, nil
}

// StartPrefix implements search.PrefixStarter, as the checker does.
func (x *goExecutor) StartPrefix(prefix schedule.Schedule) (search.Execution, error) {
	ps, ok := x.inner.(search.PrefixStarter)
	if !ok {
		return x.Start()
	}
	e, err := ps.StartPrefix(prefix)
	if err != nil {
		return nil, err
	}
	return &goExecution{Execution: e, run: cur}, nil
}

// goExecution is an execution whose outcome is named in program terms.
type goExecution struct {
	search.Execution
	run *goRun
	out *search.Outcome
}

// Ended implements search.Execution.
func (e *goExecution) Ended() *search.Outcome {
	if e.out != nil {
		return e.out
	}
	o := e.Execution.Ended()
	if o == nil {
		return nil
	}
	c := *o
	c.Where = e.ident(&c)
	e.out = &c
	return e.out
}

// State implements search.Stateful.
func (e *goExecution) State() (search.State, bool) {
	if s, ok := e.Execution.(search.Stateful); ok {
		return s.State()
	}
	return search.State{}, false
}

var hexNumber = regexp.MustCompile(`0x[0-9a-f]+|thread \d+|threads [\d, ]+`)

// ident is the Where of an outcome in program terms.
func (e *goExecution) ident(o *search.Outcome) string {
	r := e.run
	switch o.Kind {
	case search.AssertionFailure:
		if m, ok := strings.CutPrefix(o.Message, "assertion failed: "); ok && isNumbered(m, 'A') {
			return m
		}
	case search.Crash:
		m, ok := strings.CutPrefix(o.Message, "panic: ")
		if ok && isNumbered(m, 'P') {
			return m
		}
		if ok && goPanic(m) {
			// Go's panic of an operation (a close of a closed channel):
			// the panic and the site of the thread that made it, as a
			// misuse is named.
			return strings.TrimSpace(hexNumber.ReplaceAllString(m, "")) + "@" + e.failingThread("")
		}
		return hexNumber.ReplaceAllString(o.Message, "_")
	case search.Misuse:
		api, _, _ := strings.Cut(o.Where, "@")
		return api + "@" + e.failingThread(api)
	case search.Deadlock, search.Leak, search.Livelock:
		if r == nil {
			break
		}
		var at []string
		for k := range r.pos {
			at = append(at, r.where(k)...)
		}
		return strings.Join(at, ",")
	}
	return o.Where
}

// goPanic reports whether a panic's message is one Go raises for an
// operation of the model (see syncmodel.ViaPanic and GoPanics).
func goPanic(msg string) bool {
	for _, p := range []string{"send on closed channel", "close of closed channel", "close of nil channel",
		"sync: negative WaitGroup counter", "sync: WaitGroup is reused"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// where names the sites where thread k's unfinished runs are: "T1@s4"
// for its first run, "T1.2@s4" for its third.
func (r *goRun) where(k int) []string {
	var at []string
	for run, p := range r.pos[k] {
		if p < 0 {
			continue
		}
		name := "T" + strconv.Itoa(k)
		if run > 0 {
			name += "." + strconv.Itoa(run)
		}
		at = append(at, name+"@s"+strconv.Itoa(p))
	}
	return at
}

func isNumbered(s string, c byte) bool {
	if len(s) < 2 || s[0] != c {
		return false
	}
	_, err := strconv.Atoi(s[1:])
	return err == nil
}

// failingThread names the thread that made the last step, with its site:
// "T2@s14". A goroutine started by a go operation is known by its
// function; the function of an AfterFunc runs in its timer's goroutine,
// so the threads run that way that are at an operation are the
// candidates.
func (e *goExecution) failingThread(api string) string {
	r := e.run
	ce, ok := e.Execution.(*executor.Execution)
	if r == nil || !ok || len(ce.Trace()) == 0 {
		return "?"
	}
	trace := ce.Trace()
	tid := trace[len(trace)-1].Thread
	if m := ce.MisuseThread(); m != 0 {
		tid = m // a misuse placed at another thread's operation
	}
	k := -1
	if tid == 1 {
		k = 0
	} else {
		for _, st := range trace {
			if st.Thread == tid && st.Op.Kind == syncmodel.ThreadStart && len(st.Frames) > 0 {
				if t, ok := threadOfEntry[uintptr(st.Frames[0]-1)]; ok {
					k = t
				}
				break
			}
		}
	}
	if k >= 0 && k < len(r.pos) {
		if at := r.where(k); len(at) > 0 {
			return strings.Join(at, "|")
		}
		return "T" + strconv.Itoa(k)
	}
	var cands []string
	for t := range r.pos {
		if r.g.timerThreads[t] {
			cands = append(cands, r.where(t)...)
		}
	}
	sort.Strings(cands)
	if len(cands) == 0 {
		return "timer"
	}
	return strings.Join(cands, "|")
}
