// Package schedprof profiles an exploration: it records, for every source
// stack at which the program reached a scheduling point and ran a
// transition, how many executions went through it, how many transitions
// ran from it, how many of those reached a new state of the search tree
// rather than replaying the path of the previous execution, and how much
// time they took, and writes that as a pprof profile (profile.proto of
// github.com/google/pprof, encoded here), so that
//
//	go tool pprof -top explore.pprof
//
// shows which operations, called from where, the schedules multiply: the
// source of the state explosion.
//
// A Recorder sits between the search and an executor: it wraps the
// executor, and reads the stack of each step's pending operation from the
// executions, which must provide PendingFrames (executor.Execution does).
package schedprof

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/atomicfile"
	"github.com/stdbg/stdbg/internal/symbolize"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// Symbols resolves return addresses (a *symbolize.Symbolizer does).
type Symbols interface {
	Return(pc uint64) symbolize.Frame
}

// Framer is what a Recorder needs of an execution: where each thread called
// its pending operation, innermost frame first (return addresses).
type Framer interface {
	PendingFrames(tid int) []uint64
}

// Sample types of the profile, in order.
const (
	SampleExecutions  = "executions"  // executions that ran a transition from the stack
	SampleTransitions = "transitions" // transitions run from the stack
	SampleStates      = "states"      // those that left the previous execution's path: new tree nodes
	SampleTime        = "time"        // their wall time, in nanoseconds
)

// startFunc names the pseudo-function that gets the time spent starting
// executions, up to their first scheduling point.
const startFunc = "(start of an execution)"

// Recorder is a search.Executor that records the profile of the executions
// of the executor it wraps. It is not safe for concurrent use: one
// exploration at a time drives it, as search.Explore does.
type Recorder struct {
	// Binary, if set, names the program in the profile (pprof shows it).
	Binary string

	ex    search.Executor
	syms  Symbols
	start time.Time

	execs   int64
	prev    schedule.Schedule  // the steps of the last execution closed
	samples map[string]*sample // by key: operation and stack
	order   []*sample          // samples in order of first appearance
	frames  map[uint64][]symbolize.Frame
}

// sample is one stack's counts.
type sample struct {
	api         string
	pcs         []uint64
	executions  int64
	transitions int64
	states      int64
	nanos       int64
	lastExec    int64 // the execution that last counted here
}

// NewRecorder returns a recorder over ex, resolving addresses with syms.
func NewRecorder(ex search.Executor, syms Symbols) *Recorder {
	return &Recorder{ex: ex, syms: syms, start: time.Now(), samples: make(map[string]*sample),
		frames: make(map[uint64][]symbolize.Frame)}
}

// Start implements search.Executor.
func (r *Recorder) Start() (search.Execution, error) {
	t0 := time.Now()
	e, err := r.ex.Start()
	if err != nil {
		return nil, err
	}
	r.execs++
	s := r.sample(startFunc, nil)
	s.executions++
	s.lastExec = r.execs
	s.nanos += time.Since(t0).Nanoseconds()
	return &execution{Execution: e, r: r, id: r.execs}, nil
}

// sample returns the counts of operation api at stack pcs.
func (r *Recorder) sample(api string, pcs []uint64) *sample {
	var b strings.Builder
	b.WriteString(api)
	for _, pc := range pcs {
		b.WriteByte(' ')
		b.WriteString(strconv.FormatUint(pc, 16))
	}
	key := b.String()
	s := r.samples[key]
	if s == nil {
		s = &sample{api: api, pcs: append([]uint64(nil), pcs...)}
		r.samples[key] = s
		r.order = append(r.order, s)
	}
	return s
}

// execution records the steps of one execution.
type execution struct {
	search.Execution
	r        *Recorder
	id       int64
	path     schedule.Schedule
	diverged bool // the path left the previous execution's
}

// Close remembers the path, to tell replayed steps from new ones in the
// next execution.
func (e *execution) Close() error {
	e.r.prev = append(e.r.prev[:0], e.path...)
	return e.Execution.Close()
}

func (e *execution) Step(st schedule.Step) error {
	var op syncmodel.Op
	for _, t := range e.Threads() {
		if t.ID == st.Thread {
			op = t.Op
		}
	}
	var pcs []uint64
	if f, ok := e.Execution.(Framer); ok {
		pcs = f.PendingFrames(st.Thread)
	}
	api := op.API.String()
	if op.API == syncmodel.APINone {
		api = op.Kind.String()
	}
	s := e.r.sample(api, pcs)
	t0 := time.Now()
	err := e.Execution.Step(st)
	s.nanos += time.Since(t0).Nanoseconds()
	s.transitions++
	k := len(e.path)
	e.path = append(e.path, st)
	if !e.diverged && (k >= len(e.r.prev) || e.r.prev[k] != st) {
		e.diverged = true
	}
	if e.diverged {
		s.states++
	}
	if s.lastExec != e.id {
		s.lastExec = e.id
		s.executions++
	}
	return err
}

// resolve returns the user's frames of pc (one, or none for system code).
func (r *Recorder) resolve(pc uint64) []symbolize.Frame {
	if fs, ok := r.frames[pc]; ok {
		return fs
	}
	var fs []symbolize.Frame
	if r.syms != nil {
		if f := r.syms.Return(pc); !symbolize.IsSystem(f) {
			fs = append(fs, f)
		}
	}
	r.frames[pc] = fs
	return fs
}

// profile returns the profile recorded so far. Each sample's stack is the
// operation (a pseudo-function named after the call, e.g.
// pthread_mutex_lock) called from the user's frames of the stack where the
// thread reached the scheduling point; frames of system code (the C
// library, stdbg's runtime, the Go runtime) are left out.
func (r *Recorder) profile() *pprofProfile {
	p := &pprofProfile{
		sampleTypes: [][2]string{
			{SampleExecutions, "count"},
			{SampleTransitions, "count"},
			{SampleStates, "count"},
			{SampleTime, "nanoseconds"},
		},
		defaultSampleType: SampleStates,
		periodType:        [2]string{SampleTransitions, "count"},
		period:            1,
		timeNanos:         r.start.UnixNano(),
		durationNanos:     time.Since(r.start).Nanoseconds(),
		comments:          []string{fmt.Sprintf("stdbg exploration: %d executions", r.execs)},
		binary:            r.Binary,
	}
	funcs := map[string]uint64{}
	function := func(name, file string) uint64 {
		key := name + "\x00" + file
		id, ok := funcs[key]
		if !ok {
			p.functions = append(p.functions, pprofFunction{name: name, file: file})
			id = uint64(len(p.functions))
			funcs[key] = id
		}
		return id
	}
	locs := map[uint64]uint64{}
	opLocs := map[string]uint64{}
	for _, s := range r.order {
		leaf, ok := opLocs[s.api]
		if !ok {
			p.locations = append(p.locations, pprofLocation{lines: []pprofLine{{function: function(s.api, "")}}})
			leaf = uint64(len(p.locations))
			opLocs[s.api] = leaf
		}
		stack := []uint64{leaf}
		for _, pc := range s.pcs {
			fs := r.resolve(pc)
			if len(fs) == 0 {
				continue
			}
			loc, ok := locs[pc]
			if !ok {
				l := pprofLocation{address: pc}
				for _, f := range fs {
					name := f.Func
					if name == "" {
						name = fmt.Sprintf("%#x", pc)
					}
					l.lines = append(l.lines, pprofLine{function: function(name, f.File), line: int64(f.Line)})
				}
				p.locations = append(p.locations, l)
				loc = uint64(len(p.locations))
				locs[pc] = loc
			}
			stack = append(stack, loc)
		}
		p.samples = append(p.samples, pprofSample{locations: stack, values: []int64{s.executions, s.transitions, s.states, s.nanos}})
	}
	return p
}

// WriteFile writes the profile, gzipped as pprof expects, to path
// (atomically: a reader sees the old file or the whole new one).
func (r *Recorder) WriteFile(path string) error {
	data, err := r.profile().encode()
	if err != nil {
		return fmt.Errorf("encoding the profile: %w", err)
	}
	if err := atomicfile.Write(path, data); err != nil {
		return fmt.Errorf("writing the profile %s: %w", path, err)
	}
	return nil
}
