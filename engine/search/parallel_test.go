package search

import (
	"context"
	"fmt"
	"github.com/stdbg/stdbg/model/schedule"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// sharedRecorder records the trace keys of the maximal executions of
// several executors at once, from their very start (prefixes included).
type sharedRecorder struct {
	mu   sync.Mutex
	keys map[string]int
}

type recordingExecutor struct {
	ex Executor
	s  *sharedRecorder
}

func (r *recordingExecutor) Start() (Execution, error) {
	e, err := r.ex.Start()
	if err != nil {
		return nil, err
	}
	return &recordingExecution{Execution: e, s: r.s}, nil
}

type recordingExecution struct {
	Execution
	s     *sharedRecorder
	trace []Event
}

func (r *recordingExecution) Step(st schedule.Step) error {
	for _, t := range r.Threads() {
		if t.ID == st.Thread {
			r.trace = append(r.trace, Event{Step: st, Op: t.Op})
		}
	}
	return r.Execution.Step(st)
}

func (r *recordingExecution) Close() error {
	if o := r.Ended(); o != nil && (o.Kind == Exited || o.Kind == Deadlock) {
		k := traceKey(r.trace)
		r.s.mu.Lock()
		r.s.keys[k]++
		r.s.mu.Unlock()
	}
	return r.Execution.Close()
}

func fakeWorkers(prog *fakeProg) NewExecutor {
	return func(int) (Executor, func(), error) { return &fakeExecutor{prog: prog}, func() {}, nil }
}

func recordingWorkers(prog *fakeProg, s *sharedRecorder) NewExecutor {
	return func(int) (Executor, func(), error) {
		return &recordingExecutor{ex: &fakeExecutor{prog: prog}, s: s}, func() {}, nil
	}
}

func TestExploreSplitMatchesOneWorker(t *testing.T) {
	progs := map[string]*fakeProg{
		"counter 4":  counter(4).prog,
		"embrace":    embrace().prog,
		"yielders":   yielders(3, 2).prog,
		"lastzero 4": lastzero(4).prog,
	}
	r := rand.New(rand.NewPCG(3, 3))
	for i := range 20 {
		progs[fmt.Sprintf("random %d", i)] = randomProgram(r).prog
	}
	for name, prog := range progs {
		for _, depth := range []int{0, 5} {
			t.Run(fmt.Sprintf("%s depth %d", name, depth), func(t *testing.T) {
				opts := Options{All: true, MaxDepth: depth}
				one, err := Explore(context.Background(), &fakeExecutor{prog: prog}, NewDFS(), opts)
				if err != nil {
					t.Fatal(err)
				}
				if one.Stats.Executions > 20000 {
					t.Skip("too big for brute force")
				}
				for _, sp := range []Split{{Workers: 3}, {Workers: 2, Shards: 3}} {
					// DFS: the shards partition the executions.
					var execs int64
					var bugs []string
					for shard := range max(sp.Shards, 1) {
						sp.Shard = shard
						res, err := ExploreSplit(context.Background(), fakeWorkers(prog), NewDFS, opts, sp)
						if err != nil {
							t.Fatal(err)
						}
						if !res.Complete {
							t.Errorf("%+v: DFS not complete", sp)
						}
						execs += res.Stats.Executions
						bugs = append(bugs, bugKeys(res.Bugs)...)
					}
					slices.Sort(bugs)
					bugs = slices.Compact(bugs)
					if execs != one.Stats.Executions {
						t.Errorf("%+v: DFS ran %d executions in parts, %d in one", sp, execs, one.Stats.Executions)
					}
					if !slices.Equal(bugs, bugKeys(one.Bugs)) {
						t.Errorf("%+v: DFS found %q in parts, %q in one", sp, bugs, bugKeys(one.Bugs))
					}
					// DPOR: the same bugs, every trace.
					rec := &sharedRecorder{keys: map[string]int{}}
					all := newTraceRecorder(NewDFS())
					if _, err := Explore(context.Background(), &fakeExecutor{prog: prog}, all, opts); err != nil {
						t.Fatal(err)
					}
					bugs = bugs[:0]
					for shard := range max(sp.Shards, 1) {
						sp.Shard = shard
						res, err := ExploreSplit(context.Background(), recordingWorkers(prog, rec), NewDPOR, opts, sp)
						if err != nil {
							t.Fatal(err)
						}
						bugs = append(bugs, bugKeys(res.Bugs)...)
					}
					slices.Sort(bugs)
					bugs = slices.Compact(bugs)
					if !slices.Equal(bugs, bugKeys(one.Bugs)) {
						t.Errorf("%+v: DPOR found %q in parts, DFS %q", sp, bugs, bugKeys(one.Bugs))
					}
					if depth == 0 {
						for k := range all.keys {
							if rec.keys[k] == 0 {
								t.Errorf("%+v: DPOR in parts missed trace %s", sp, k)
							}
						}
					}
				}
			})
		}
	}
}

func TestExploreSplitFirstBugStops(t *testing.T) {
	res, err := ExploreSplit(context.Background(), fakeWorkers(embrace().prog), NewDFS, Options{}, Split{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Outcome.Kind != Deadlock || res.Complete {
		t.Fatalf("bugs %v complete %v", res.Bugs, res.Complete)
	}
	// The schedule is from the start: it replays.
	e, _ := embrace().Start()
	rr, err := Replay(e, res.Bugs[0].Schedule, 0)
	if err != nil || rr.Outcome == nil || rr.Outcome.Kind != Deadlock {
		t.Fatalf("replay of %v: %v %v", res.Bugs[0].Schedule, rr, err)
	}
}

func TestExploreSplitBadShard(t *testing.T) {
	if _, err := ExploreSplit(context.Background(), fakeWorkers(embrace().prog), NewDFS, Options{}, Split{Shard: 3, Shards: 3}); err == nil {
		t.Fatal("shard 3 of 3 accepted")
	}
}

// Options.MaxExecutions bounds the divided search as a whole, not each
// part (a search bounded to 30 executions ran hundreds before).
func TestExploreSplitExecutionLimit(t *testing.T) {
	prog := lastzero(4).prog
	one, err := Explore(context.Background(), &fakeExecutor{prog: prog}, NewDFS(), Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{1, 30, one.Stats.Executions - 1} {
		res, err := ExploreSplit(context.Background(), fakeWorkers(prog), NewDFS, Options{All: true, MaxExecutions: limit}, Split{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.Executions != limit || res.Complete {
			t.Errorf("limit %d: %d executions, complete %v", limit, res.Stats.Executions, res.Complete)
		}
	}
	res, err := ExploreSplit(context.Background(), fakeWorkers(prog), NewDFS, Options{All: true, MaxExecutions: one.Stats.Executions}, Split{Workers: 3})
	if err != nil || res.Stats.Executions != one.Stats.Executions || !res.Complete {
		t.Errorf("limit of exactly the search: %d executions of %d, complete %v, %v", res.Stats.Executions, one.Stats.Executions, res.Complete, err)
	}
}

// OnBug hears of every distinct bug once, with a schedule from the start
// that replays it, as soon as it is found: in one search and in a divided
// one.
func TestOnBug(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	total := 0
	for i := range 20 {
		prog := randomProgram(r).prog
		heard := map[string]int{}
		var mu sync.Mutex
		opts := Options{All: true, OnBug: func(b Bug) {
			mu.Lock()
			defer mu.Unlock()
			heard[b.Outcome.Key()]++
			e, _ := (&fakeExecutor{prog: prog}).Start()
			rr, err := Replay(e, b.Schedule, 0)
			if err != nil || rr.Outcome == nil || rr.Outcome.Key() != b.Outcome.Key() {
				t.Errorf("program %d: %v does not replay to %v: %v %v", i, b.Schedule, b.Outcome, rr, err)
			}
		}}
		one, err := Explore(context.Background(), &fakeExecutor{prog: prog}, NewDFS(), opts)
		if err != nil {
			t.Fatal(err)
		}
		check := func(what string, res *Result) {
			total += len(heard)
			if len(heard) != len(res.Bugs) {
				t.Errorf("program %d, %s: heard of %d bugs, found %d", i, what, len(heard), len(res.Bugs))
			}
			for k, n := range heard {
				if n != 1 {
					t.Errorf("program %d, %s: heard of %s %d times", i, what, k, n)
				}
			}
			clear(heard)
		}
		check("one search", one)
		split, err := ExploreSplit(context.Background(), fakeWorkers(prog), NewDFS, opts, Split{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		check("divided", split)
	}
	if total == 0 {
		t.Fatal("no program had a bug")
	}
}
