package hunt_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
)

// foundLong searches the embrace for its deadlock as a search would find
// it after a detour: the schedule 1;2;1, which minimisation turns into
// 1;1;2 (as long, one preemption fewer).
func foundLong(t *testing.T) func(context.Context, search.Options) (*hunt.Explored, error) {
	t.Helper()
	e, err := executor.New(embrace(), executor.Options{}).Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	long := mustSchedule(t, "1;2;1")
	rr, err := search.Replay(e, long, 100)
	if err != nil || rr.Outcome == nil || rr.Outcome.Kind != search.Deadlock {
		t.Fatalf("replaying %s: %v, %+v", long, err, rr)
	}
	out := *rr.Outcome
	return func(context.Context, search.Options) (*hunt.Explored, error) {
		return &hunt.Explored{Result: search.Result{Bugs: []search.Bug{{Schedule: long, Outcome: out}},
			Stats: search.Stats{Executions: 1}}}, nil
	}
}

// TestReportFirst: a bug is reported, explained and saved as found before
// its minimisation runs, then reported again minimised, its entry
// replacing the first: one entry per bug at every moment.
func TestReportFirst(t *testing.T) {
	rt := embrace()
	dir := t.TempDir()
	ex := &counting{Executor: executor.New(rt, executor.Options{})}
	var told []*hunt.Finding
	entries := func() []string {
		names, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		return names
	}
	res, err := hunt.Run(context.Background(), hunt.Config{
		Executor: ex, Request: hunt.Request{MaxDepth: 100, Minimise: true},
		Explore:       foundLong(t),
		Explain:       explainer(rt),
		ReplayCommand: func(s string) string { return "replay " + s },
		Corpus: &hunt.Corpus{Dir: dir, Target: corpus.Target{Kind: "binary", Binary: "embrace"}, Version: "test",
			ReplaySaved: func(path string) string { return "stdbg replay " + path }},
		Reported: func(f *hunt.Finding) {
			told = append(told, f)
			if len(told) == 1 {
				// Told before minimisation ran a single execution, saved.
				if ex.n != 0 {
					t.Errorf("the bug was told after %d executions of minimisation", ex.n)
				}
				if got := entries(); len(got) != 1 || got[0] != f.Saved {
					t.Errorf("when first told, the corpus holds %q, want only %q", got, f.Saved)
				}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(told) != 2 {
		t.Fatalf("told of %d findings, want the bug as found, then minimised", len(told))
	}
	first, final := told[0], told[1]
	if !first.Minimising || first.Report == nil || first.Report.Path != "1;2;1" || first.Report.Minimised != nil ||
		first.Report.Replay != "stdbg replay "+first.Saved {
		t.Errorf("first told %+v, report %+v: want the bug as found, saved, minimisation to follow", first, first.Report)
	}
	if final.Minimising || final.Minimised == nil || final.Report.Path != "1;1;2" || final.Report.Minimised == nil ||
		final.Replaced != first.Saved || final.Saved == first.Saved {
		t.Errorf("then told %+v, report %+v: want the minimised bug, replacing %s", final, final.Report, first.Saved)
	}
	if len(res.Findings) != 1 || res.Findings[0] != final {
		t.Errorf("the result's findings %v, want the minimised one", res.Findings)
	}
	if got := entries(); len(got) != 1 || got[0] != final.Saved {
		t.Fatalf("the corpus holds %q, want only the minimised %q", got, final.Saved)
	}
	e, err := corpus.Load(final.Saved)
	if err != nil {
		t.Fatal(err)
	}
	if e.Schedule != "1;1;2" || e.Original != "1;2;1" || e.Report == nil || e.Report.Minimised == nil {
		t.Errorf("stored entry %+v", e)
	}
}

// TestReportFirstOlderEntries: an entry of the bug as found that was in
// the corpus before the hunt, never minimised (a search stopped before,
// or --no-minimise), is replaced too; one that was minimised stays.
func TestReportFirstOlderEntries(t *testing.T) {
	rt := embrace()
	cfg := func(dir string, minimise bool) hunt.Config {
		return hunt.Config{Executor: executor.New(rt, executor.Options{}), Request: hunt.Request{MaxDepth: 100, Minimise: minimise},
			Explore: foundLong(t), Explain: explainer(rt),
			Corpus:   &hunt.Corpus{Dir: dir, Target: corpus.Target{Kind: "binary", Binary: "embrace"}},
			Reported: func(*hunt.Finding) {}}
	}
	t.Run("never minimised: replaced", func(t *testing.T) {
		dir := t.TempDir()
		old, err := hunt.Run(context.Background(), cfg(dir, false))
		if err != nil {
			t.Fatal(err)
		}
		res, err := hunt.Run(context.Background(), cfg(dir, true))
		if err != nil {
			t.Fatal(err)
		}
		f := res.Findings[0]
		names, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		if f.Replaced != old.Findings[0].Saved || len(names) != 1 || names[0] != f.Saved {
			t.Errorf("replaced %q, the corpus holds %q: want only the minimised entry, in place of %s", f.Replaced, names,
				old.Findings[0].Saved)
		}
	})
	t.Run("minimised: kept", func(t *testing.T) {
		dir := t.TempDir()
		// The schedule found, saved as the result of a minimisation.
		e, err := corpus.Load(mustFirstEntry(t, cfg(t.TempDir(), false)))
		if err != nil {
			t.Fatal(err)
		}
		e.Report.Minimised = &report.Minimisation{Length: 3, FromLength: 3}
		kept, _, err := corpus.Save(dir, e)
		if err != nil {
			t.Fatal(err)
		}
		res, err := hunt.Run(context.Background(), cfg(dir, true))
		if err != nil {
			t.Fatal(err)
		}
		f := res.Findings[0]
		if f.Replaced != "" || f.Saved == kept {
			t.Errorf("replaced %q, saved %q: want the minimised entry beside the older one", f.Replaced, f.Saved)
		}
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("the older minimised entry: %v", err)
		}
	})
}

// mustFirstEntry runs a hunt of cfg and returns the entry it saved.
func mustFirstEntry(t *testing.T, cfg hunt.Config) string {
	t.Helper()
	res, err := hunt.Run(context.Background(), cfg)
	if err != nil || len(res.Findings) != 1 || res.Findings[0].Saved == "" {
		t.Fatalf("hunt: %v, %+v", err, res)
	}
	return res.Findings[0].Saved
}

// TestMinimiseTime: a minimisation may take four times its search, and at
// least five seconds.
func TestMinimiseTime(t *testing.T) {
	for _, tc := range []struct{ search, want time.Duration }{
		{0, 5 * time.Second},
		{time.Second, 5 * time.Second},
		{2 * time.Second, 8 * time.Second},
		{time.Minute, 4 * time.Minute},
	} {
		if got := hunt.MinimiseTime(tc.search); got != tc.want {
			t.Errorf("MinimiseTime(%v) = %v, want %v", tc.search, got, tc.want)
		}
	}
}

// slow makes every execution after the first take a while.
type slow struct {
	search.Executor
	n int
}

func (s *slow) Start() (search.Execution, error) {
	if s.n++; s.n > 1 {
		time.Sleep(30 * time.Millisecond)
	}
	return s.Executor.Start()
}

// TestMinimiseBound: a minimisation that outlives its bound stops with
// the best schedule it has, and its report says why it is not proven.
func TestMinimiseBound(t *testing.T) {
	defer func(f time.Duration) { hunt.MinimiseFloor = f }(hunt.MinimiseFloor)
	hunt.MinimiseFloor = 50 * time.Millisecond
	rt := embrace()
	res, err := hunt.Run(context.Background(), hunt.Config{
		Executor: &slow{Executor: executor.New(rt, executor.Options{})}, Request: hunt.Request{MaxDepth: 100, Minimise: true},
		Explore: foundLong(t), Explain: explainer(rt)})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Findings[0]
	if f.Minimised == nil || f.Minimised.Proven || f.Report.Minimised == nil {
		t.Fatalf("minimisation %+v: want one stopped unproven", f.Minimised)
	}
	if want := "stopped at its bound of 50ms (4 times the search's "; !strings.HasPrefix(f.Report.Minimised.Unproven, want) {
		t.Errorf("the report says %q, want it to begin with %q", f.Report.Minimised.Unproven, want)
	}
}
