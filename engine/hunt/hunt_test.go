package hunt_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/executor"
	ct "github.com/stdbg/stdbg/engine/executor/executortest"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/ltl"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/symbolize"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// syms places the fake's code: 0x1NN is line NN of embrace.c.
type syms struct{}

func (syms) Return(pc uint64) symbolize.Frame {
	return symbolize.Frame{PC: pc, Func: "worker", File: "/src/embrace.c", Line: int(pc & 0xff)}
}
func (s syms) Exact(pc uint64) symbolize.Frame { return s.Return(pc) }
func (syms) Data(uint64) (string, bool)        { return "", false }

func op(kind syncmodel.Kind, api syncmodel.API, obj, pc uint64) ct.Step {
	return ct.Op(kind, api, obj, pc)
}

// embrace is two threads taking two mutexes in opposite orders: the first
// execution (each thread runs as long as it can) ends cleanly, a deadlock
// needs a switch after the first lock.
func embrace() *ct.Runtime {
	return &ct.Runtime{
		Main: []ct.Step{
			op(syncmodel.ThreadCreate, syncmodel.APIPthreadCreate, 0, 0x10a),
			op(syncmodel.MutexLock, syncmodel.APIMutexLock, 0xa, 0x10b),
			op(syncmodel.MutexLock, syncmodel.APIMutexLock, 0xb, 0x10c),
			op(syncmodel.MutexUnlock, syncmodel.APIMutexUnlock, 0xb, 0x10d),
			op(syncmodel.MutexUnlock, syncmodel.APIMutexUnlock, 0xa, 0x10e),
			{Op: syncmodel.Op{Kind: syncmodel.ThreadJoin, API: syncmodel.APIPthreadJoin, Arg: 2}, PC: 0x10f},
			op(syncmodel.Exit, syncmodel.APIMainReturn, 0, 0x110),
		},
		Children: [][]ct.Step{{
			op(syncmodel.MutexLock, syncmodel.APIMutexLock, 0xb, 0x114),
			op(syncmodel.MutexLock, syncmodel.APIMutexLock, 0xa, 0x115),
			op(syncmodel.MutexUnlock, syncmodel.APIMutexUnlock, 0xa, 0x116),
			op(syncmodel.MutexUnlock, syncmodel.APIMutexUnlock, 0xb, 0x117),
			op(syncmodel.ThreadExit, syncmodel.APIThreadReturn, 0, 0x118),
		}},
	}
}

// counting counts the executions an executor starts.
type counting struct {
	search.Executor
	n int
}

func (c *counting) Start() (search.Execution, error) {
	c.n++
	return c.Executor.Start()
}

// explainer replays a bug on a checker of rt and builds its report.
func explainer(rt executor.Runtime) func(context.Context, search.Bug) (*hunt.Explanation, error) {
	return func(_ context.Context, b search.Bug) (*hunt.Explanation, error) {
		e, err := executor.New(rt, executor.Options{}).Begin()
		if err != nil {
			return nil, err
		}
		defer e.Close()
		rr, err := search.Replay(e, b.Schedule, 100)
		if err != nil {
			return nil, err
		}
		return &hunt.Explanation{Report: report.Build(e, rr.Outcome, syms{}), Outcome: rr.Outcome}, nil
	}
}

func TestRun(t *testing.T) {
	rt := embrace()
	dir := t.TempDir()
	ex := &counting{Executor: executor.New(rt, executor.Options{})}
	res, err := hunt.Run(context.Background(), hunt.Config{
		Executor: ex, Request: hunt.Request{MaxDepth: 100, Minimise: true},
		Explain:       explainer(rt),
		ReplayCommand: func(s string) string { return "replay " + s },
		Corpus: &hunt.Corpus{Dir: dir, Target: corpus.Target{Kind: "binary", Binary: "embrace"}, Version: "test",
			ReplaySaved: func(path string) string { return "stdbg replay " + path }},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 {
		t.Fatalf("%d findings, want 1", len(res.Findings))
	}
	f := res.Findings[0]
	if f.Bug.Outcome.Kind != search.Deadlock || f.Report == nil || f.Report.Kind != "deadlock" {
		t.Fatalf("finding %+v, report %+v: want a deadlock with its report", f.Bug, f.Report)
	}
	if f.Minimised == nil || f.Report.Minimised == nil || !f.Minimised.Proven {
		t.Fatalf("the deadlock was not minimised: %+v", f.Minimised)
	}
	if got := f.Bug.Schedule.String(); got != "1;1;2" || f.Report.Path != got {
		t.Errorf("schedule %s, report's %s: want the minimal 1;1;2", got, f.Report.Path)
	}
	if res.Stats.Executions != res.Search.Stats.Executions+f.Minimised.Stats.Executions {
		t.Errorf("stats count %d executions: want the search's %d and the minimisation's %d", res.Stats.Executions,
			res.Search.Stats.Executions, f.Minimised.Stats.Executions)
	}
	// The search, minimisation: nothing else ran on the executor.
	if int64(ex.n) != res.Stats.Executions {
		t.Errorf("the executor ran %d executions, the stats count %d", ex.n, res.Stats.Executions)
	}
	if f.Saved == "" || f.Report.Saved != f.Saved || f.Report.Replay != "stdbg replay "+f.Saved {
		t.Fatalf("saved %q, report's %q, replay %q", f.Saved, f.Report.Saved, f.Report.Replay)
	}
	e, err := corpus.Load(f.Saved)
	if err != nil {
		t.Fatal(err)
	}
	original := ""
	if !f.Found.Equal(f.Bug.Schedule) {
		original = f.Found.String()
	}
	if e.Schedule != "1;1;2" || e.Original != original || e.Report == nil || e.Report.Replay != "replay 1;1;2" ||
		e.Search.MaxDepth != 100 || e.Target.Binary != "embrace" || e.Failure.Kind != "deadlock" {
		t.Errorf("stored entry %+v", e)
	}
	// The same bug again: already saved.
	again, err := hunt.Run(context.Background(), hunt.Config{Executor: executor.New(rt, executor.Options{}),
		Request: hunt.Request{MaxDepth: 100, Minimise: true}, Explain: explainer(rt),
		Corpus: &hunt.Corpus{Dir: dir, Target: corpus.Target{Kind: "binary", Binary: "embrace"}}})
	if err != nil {
		t.Fatal(err)
	}
	if g := again.Findings[0]; !g.AlreadySaved || g.Saved != f.Saved {
		t.Errorf("second hunt: saved %q (already %v), want %q already saved", g.Saved, g.AlreadySaved, f.Saved)
	}
}

func TestRunStages(t *testing.T) {
	found := mustSchedule(t, "1;1;2;2")
	formula, err := ltl.Parse("G p")
	if err != nil {
		t.Fatal(err)
	}
	pre := &search.Minimised{Schedule: mustSchedule(t, "1;1;2"), Original: found, OriginalLength: 4, Length: 3,
		Outcome: search.Outcome{Kind: search.Deadlock, Where: "w"}}
	pre.Stats.Executions = 7
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		cfg  func(*hunt.Config)
		// check the result; ran is the number of executions the executor
		// started.
		check func(t *testing.T, res *hunt.Result, ran int)
	}{{
		name: "minimised where the search ran: not again",
		cfg: func(c *hunt.Config) {
			c.Explore = func(context.Context, search.Options) (*hunt.Explored, error) {
				return &hunt.Explored{Result: search.Result{Bugs: []search.Bug{{Schedule: found,
					Outcome: search.Outcome{Kind: search.Deadlock, Where: "w"}}}}, Minimised: []*search.Minimised{pre}}, nil
			}
		},
		check: func(t *testing.T, res *hunt.Result, ran int) {
			f := res.Findings[0]
			if ran != 0 || f.Minimised != pre || f.Bug.Schedule.String() != "1;1;2" || f.Found.String() != "1;1;2;2" {
				t.Errorf("ran %d executions; finding %+v", ran, f)
			}
			if res.Stats.Executions != 7 {
				t.Errorf("stats count %d executions, want the 7 of the minimisation", res.Stats.Executions)
			}
		},
	}, {
		name: "stopped before the search: no minimisation, no error",
		ctx:  cancelled,
		check: func(t *testing.T, res *hunt.Result, ran int) {
			if !res.Interrupted || len(res.Findings) != 0 {
				t.Errorf("interrupted %v, %d findings", res.Interrupted, len(res.Findings))
			}
		},
	}, {
		name: "a replay that ends otherwise: the report still shows the bug, and says so",
		cfg: func(c *hunt.Config) {
			c.Explain = func(_ context.Context, b search.Bug) (*hunt.Explanation, error) {
				return &hunt.Explanation{Report: &report.Report{Kind: "exited"}}, nil
			}
			c.Nondeterminism = "the program may read the clock"
			c.Hints = func() []string { return []string{"a hint"} }
		},
		check: func(t *testing.T, res *hunt.Result, ran int) {
			r := res.Findings[0].Report
			if r.Kind != "deadlock" || !r.Bug || r.Path != res.Findings[0].Bug.Schedule.String() {
				t.Errorf("report %+v: want the deadlock's", r)
			}
			notes := strings.Join(r.Notes, "\n")
			if !strings.Contains(notes, "replaying the schedule gave no failure instead of deadlock: the program may read the clock") ||
				!strings.Contains(notes, "a hint") {
				t.Errorf("notes %q", notes)
			}
		},
	}, {
		name: "a formula on an incomplete search: not checked, and said",
		cfg: func(c *hunt.Config) {
			c.LTL = formula
			c.Explore = func(context.Context, search.Options) (*hunt.Explored, error) {
				return &hunt.Explored{Result: search.Result{Graph: &search.Graph{}, Complete: false}}, nil
			}
		},
		check: func(t *testing.T, res *hunt.Result, ran int) {
			if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "not checked") {
				t.Errorf("notes %q", res.Notes)
			}
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt := embrace()
			ex := &counting{Executor: executor.New(rt, executor.Options{})}
			cfg := hunt.Config{Executor: ex, Request: hunt.Request{MaxDepth: 100, Minimise: true}, Explain: explainer(rt)}
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			res, err := hunt.Run(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, res, ex.n)
		})
	}
}

func mustSchedule(t *testing.T, s string) schedule.Schedule {
	t.Helper()
	sc, err := schedule.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestMinimiseFromTheSearch checks that the minimisation of a bug that a
// complete reducing search found takes its proof from that search (what
// it kept of its failing executions) instead of running the search again:
// the schedule and what is proven are those of a minimisation on its own,
// in fewer executions.
func TestMinimiseFromTheSearch(t *testing.T) {
	rt := embrace()
	res, err := hunt.Run(context.Background(), hunt.Config{
		Executor: executor.New(rt, executor.Options{}), Request: hunt.Request{MaxDepth: 100, All: true, Minimise: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Minimised == nil {
		t.Fatalf("findings %+v: want one, minimised", res.Findings)
	}
	f := res.Findings[0]
	alone, err := search.Minimise(context.Background(), executor.New(rt, executor.Options{}),
		search.Bug{Schedule: f.Found, Outcome: f.Bug.Outcome},
		search.MinimiseOptions{MaxDepth: 100, Exhaustive: true, SearchExecutions: res.Search.Stats.Executions})
	if err != nil {
		t.Fatal(err)
	}
	m := f.Minimised
	if !m.Schedule.Equal(alone.Schedule) || m.Proven != alone.Proven || !m.Proven {
		t.Errorf("minimised to %v (proven %v), on its own %v (proven %v)", m.Schedule, m.Proven, alone.Schedule, alone.Proven)
	}
	if m.Stats.Executions >= alone.Stats.Executions {
		t.Errorf("the minimisation ran %d executions, %d on its own: the search's traces were not used",
			m.Stats.Executions, alone.Stats.Executions)
	}
}
