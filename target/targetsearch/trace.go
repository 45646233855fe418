package targetsearch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
)

// Trace is the execution under way in a searching target, step by step, in
// a file the target maps shared: when the target dies, the file still
// holds the schedule that killed it. Its layout: the number of steps (8
// bytes, little endian), then each step as its thread and choice (4 bytes
// each). A count above the capacity means the execution outgrew the file.
type Trace struct {
	mem []byte
	cap int
	n   int
}

const traceHeader = 8

// CreateTrace makes the trace file at path, for executions of at most
// steps steps.
func CreateTrace(path string, steps int) error {
	if steps < 1 {
		steps = 1
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("creating the trace file: %w", err)
	}
	defer f.Close()
	if err := f.Truncate(int64(traceHeader + 8*steps)); err != nil {
		return fmt.Errorf("sizing the trace file: %w", err)
	}
	return nil
}

// OpenTrace maps the trace file at path for writing.
func OpenTrace(path string) (*Trace, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("opening the trace file: %w", err)
	}
	defer f.Close()
	return MapTrace(f)
}

// MapTrace maps the trace file open as f (read and write) for writing; f
// may be closed afterwards. A target gets its trace as a descriptor that
// stdbg opened (TraceEnv), so that it needs no right to the file's
// directory: a program confined as a user of its own writes it too.
func MapTrace(f *os.File) (*Trace, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("opening the trace file: %w", err)
	}
	size := int(st.Size())
	if size < traceHeader+8 {
		return nil, errors.New("the trace file is too small")
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping the trace file: %w", err)
	}
	return &Trace{mem: mem, cap: (size - traceHeader) / 8}, nil
}

// Close unmaps the trace.
func (t *Trace) Close() error {
	if t == nil || t.mem == nil {
		return nil
	}
	err := syscall.Munmap(t.mem)
	t.mem = nil
	return err
}

// reset starts a new execution.
func (t *Trace) reset() {
	t.n = 0
	binary.LittleEndian.PutUint64(t.mem, 0)
}

// push records the next step.
func (t *Trace) push(s schedule.Step) {
	if t.n < t.cap {
		off := traceHeader + 8*t.n
		binary.LittleEndian.PutUint32(t.mem[off:], uint32(int32(s.Thread)))
		binary.LittleEndian.PutUint32(t.mem[off+4:], uint32(int32(s.Choice)))
	}
	t.n++
	binary.LittleEndian.PutUint64(t.mem, uint64(t.n))
}

// ReadTrace reads the schedule recorded in the trace file at path; ok is
// false when it outgrew the file.
func ReadTrace(path string) (s schedule.Schedule, ok bool, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false, fmt.Errorf("reading the trace file: %w", err)
	}
	if len(b) < traceHeader {
		return nil, false, errors.New("the trace file is too small")
	}
	n := binary.LittleEndian.Uint64(b)
	if n > uint64((len(b)-traceHeader)/8) {
		return nil, false, nil
	}
	s = make(schedule.Schedule, n)
	for i := range s {
		off := traceHeader + 8*i
		s[i] = schedule.Step{Thread: int(int32(binary.LittleEndian.Uint32(b[off:]))),
			Choice: int(int32(binary.LittleEndian.Uint32(b[off+4:])))}
	}
	return s, true, nil
}

// Recorder is an executor that records every step of its executions in a
// trace, and ends an execution that reaches one of the known ends with the
// end's outcome instead of running its last step.
type Recorder struct {
	ex    search.Executor
	tr    *Trace
	ends  map[uint64][]known
	depth int // the longest end
	// afterStep, if not nil, is called after every step of every
	// execution (Serve polls its deadlines and stop there).
	afterStep func()
}

type known struct {
	s schedule.Schedule
	o search.Outcome
}

// NewRecorder wraps ex. tr may be nil (nothing recorded).
func NewRecorder(ex search.Executor, tr *Trace, ends []End) (*Recorder, error) {
	r := &Recorder{ex: ex, tr: tr, ends: map[uint64][]known{}}
	for _, e := range ends {
		s, err := schedule.Parse(e.Schedule)
		if err != nil {
			return nil, fmt.Errorf("end %q: %w", e.Schedule, err)
		}
		if len(s) == 0 {
			continue
		}
		h := hashOf(s)
		r.ends[h] = append(r.ends[h], known{s: s, o: e.Outcome})
		r.depth = max(r.depth, len(s))
	}
	return r, nil
}

// Start begins an execution.
func (r *Recorder) Start() (search.Execution, error) {
	e, err := r.ex.Start()
	if err != nil {
		return nil, err
	}
	if r.tr != nil {
		r.tr.reset()
	}
	x := &recorded{Execution: e, r: r, h: hashSeed}
	if r.depth > 0 {
		x.sched = make(schedule.Schedule, 0, r.depth)
	}
	return x, nil
}

// recorded is an execution of a Recorder.
type recorded struct {
	search.Execution
	r     *Recorder
	h     uint64
	n     int
	sched schedule.Schedule // the steps so far, while an end may be reached
	ended *search.Outcome   // a known end reached
}

const hashSeed = 14695981039346656037

func hashStep(h uint64, s schedule.Step) uint64 {
	h = (h ^ uint64(uint32(s.Thread))) * 1099511628211
	return (h ^ uint64(uint32(s.Choice))<<1) * 1099511628211
}

func hashOf(s schedule.Schedule) uint64 {
	h := uint64(hashSeed)
	for _, st := range s {
		h = hashStep(h, st)
	}
	return h
}

// Loops implements search.Looper for the execution it wraps, when that
// one does: what the threads of an execution cut by the depth bound were
// looping in.
func (x *recorded) Loops() []string {
	if l, ok := x.Execution.(search.Looper); ok {
		return l.Loops()
	}
	return nil
}

func (x *recorded) Threads() []search.Thread {
	if x.ended != nil {
		return nil
	}
	return x.Execution.Threads()
}

func (x *recorded) Ended() *search.Outcome {
	if x.ended != nil {
		return x.ended
	}
	return x.Execution.Ended()
}

func (x *recorded) Step(s schedule.Step) error {
	if x.ended != nil {
		return errors.New("the execution is over")
	}
	x.n++
	if x.r.tr != nil {
		x.r.tr.push(s)
	}
	if x.n <= x.r.depth {
		x.h = hashStep(x.h, s)
		x.sched = append(x.sched, s)
		for _, k := range x.r.ends[x.h] {
			if len(k.s) == x.n && k.s.Equal(x.sched) {
				o := k.o
				o.Step = x.n
				x.ended = &o
				return nil
			}
		}
	}
	err := x.Execution.Step(s)
	if x.r.afterStep != nil {
		x.r.afterStep()
	}
	return err
}
