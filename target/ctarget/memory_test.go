package ctarget_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// memoryDir holds the examples whose bugs are between plain memory
// accesses, found only in builds with the memory instrumentation.
const memoryDir = examplesDir + "/memory"

// buildMemory builds a memory example with the instrumentation.
func buildMemory(t *testing.T, file string) string {
	t.Helper()
	if !strings.Contains(file, "/") {
		file = filepath.Join("memory", file)
	}
	exe, note, err := ctarget.BuildWith(filepath.Join(examplesDir, file), ctarget.BuildOptions{Memory: true})
	if err != nil {
		t.Fatalf("building %s: %v", file, err)
	}
	if note != "" {
		t.Fatalf("building %s: the compiler must instrument it (gcc and clang can): %s", file, note)
	}
	return exe
}

// TestBuildWithMemory: an instrumented build is marked as such, is cached
// apart from the plain build of the same source, and runs as a normal
// program outside stdbg (the entry points do nothing there).
func TestBuildWithMemory(t *testing.T) {
	useExampleCache(t)
	src := filepath.Join(memoryDir, "lost-update.c")
	plain, err := ctarget.Build(src)
	if err != nil {
		t.Fatal(err)
	}
	inst := buildMemory(t, "lost-update.c")
	if plain == inst {
		t.Fatalf("the plain and the instrumented build share %s", plain)
	}
	if ctarget.MemoryInstrumented(plain) {
		t.Errorf("%s: the plain build says it is instrumented", plain)
	}
	if !ctarget.MemoryInstrumented(inst) {
		t.Errorf("%s: the instrumented build says it is not", inst)
	}
	again := buildMemory(t, "lost-update.c")
	if again != inst {
		t.Errorf("rebuilding the unchanged source: %s, then %s", inst, again)
	}
	out, err := exec.Command(inst).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "2 visits" {
		t.Errorf("running %s alone: %v, output %q; want \"2 visits\"", inst, err, out)
	}
}

// TestMemoryExamples explores the memory examples as stdbg find does: by
// default (logged: plain accesses logged for the race detector, atomics
// scheduling points) the bugs between plain loads and stores are found as
// data races; with every access a scheduling point (--races=false, and
// formerly --memory), as data races too and, with the race detector off,
// as the failures they cause; the fixed program is exhausted without a
// bug.
func TestMemoryExamples(t *testing.T) {
	useExampleCache(t)
	tests := []struct {
		file   string // in memoryDir, else relative to examplesDir
		args   []string
		races  bool
		logged bool // plain accesses logged, not scheduling points (ctarget.MemoryLogEnv)
		want   search.Kind
		// message must be in the bug's message.
		message string
	}{
		{"lost-update.c", nil, true, true, search.DataRace, "(after step"},
		{"refcount.c", nil, true, true, search.DataRace, "(after step"},
		{"check-then-act.c", nil, true, true, search.DataRace, "(after step"},
		{"double-checked.c", nil, true, true, search.DataRace, "(after step"},
		{"publish.c", nil, true, true, search.DataRace, "(after step"},
		{"ring-buffer.c", nil, true, true, search.DataRace, "(after step"},
		{"token-ring.c", nil, true, true, search.DataRace, "(after step"},
		{"work-stealing.c", nil, true, true, search.DataRace, "8 bytes"},
		{"aba-stack.c", nil, true, true, search.DataRace, "8 bytes"},
		// The worker's loop only reads the flag: it yields after many
		// reads (it would otherwise never reach a scheduling point).
		{"spin-wait.c", nil, true, true, search.DataRace, "(after step"},
		{"publish-atomic.c", nil, true, true, exampleClean, ""},
		{"dpor/readers-writers.c", []string{"2"}, true, true, exampleClean, ""},

		{"lost-update.c", nil, true, false, search.DataRace, "4 bytes"},
		{"lost-update.c", nil, false, false, search.AssertionFailure, "visits == 2"},
		{"refcount.c", nil, true, false, search.DataRace, "4 bytes"},
		{"refcount.c", nil, false, false, search.AssertionFailure, "frees == 1"},
		{"check-then-act.c", nil, false, false, search.AssertionFailure, "no seat is sold twice"},
		{"double-checked.c", nil, false, false, search.AssertionFailure, "filled before it is used"},
		{"publish.c", nil, true, false, search.DataRace, "writes 4 bytes"},
		{"ring-buffer.c", nil, false, false, search.AssertionFailure, "both items were put"},
		{"token-ring.c", nil, false, false, search.AssertionFailure, "one worker at a time"},
		{"work-stealing.c", nil, true, false, search.DataRace, "8 bytes"},
		// Lock-free code without annotations: C11 atomics are
		// scheduling points, and the ABA is found.
		{"aba-stack.c", nil, false, false, search.AssertionFailure, "free list"},
		{"aba-stack.c", nil, true, false, search.DataRace, "8 bytes"},
		{"publish-atomic.c", nil, true, false, exampleClean, ""},
		// stdbg.h's own lookups of its entry points are no shared
		// memory of the program: no race among the annotations.
		{"dpor/readers-writers.c", []string{"2"}, true, false, exampleClean, ""},
	}
	for _, tt := range tests {
		name := strings.TrimSuffix(filepath.Base(tt.file), ".c")
		switch {
		case tt.logged:
			name += "/logged"
		case !tt.races:
			name += "/no-races"
		}
		t.Run(name, func(t *testing.T) {
			exe := buildMemory(t, tt.file)
			cfg := targetproc.Config{Binary: exe, Args: tt.args, Flags: wire.FlagFastExit}
			if tt.logged {
				cfg.Env = append(os.Environ(), ctarget.MemoryLogEnv)
			}
			p, err := ctarget.Start(cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			c := executor.New(p, executor.Options{FastExit: true, Races: tt.races})
			res, err := search.Explore(context.Background(), c, search.NewDPOR(),
				search.Options{MaxDepth: 1000, MaxExecutions: exampleExecutions})
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == exampleClean {
				if len(res.Bugs) > 0 || !res.Complete || res.DepthLimited {
					t.Fatalf("bugs %v, complete %v; want none, complete", res.Bugs, res.Complete)
				}
				return
			}
			if len(res.Bugs) == 0 {
				t.Fatalf("no bug found in %d executions; want %v", res.Stats.Executions, tt.want)
			}
			bug := res.Bugs[0]
			if bug.Outcome.Kind != tt.want || !strings.Contains(bug.Outcome.Message, tt.message) {
				t.Fatalf("found %v: %s; want %v with %q", bug.Outcome.Kind, bug.Outcome.Message, tt.want, tt.message)
			}
			// The schedule holds memory steps: the bug needs a switch
			// between a load and a store.
			e, err := c.Begin()
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			rr, err := search.Replay(e, bug.Schedule, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if rr.Outcome == nil || rr.Outcome.Kind != tt.want {
				t.Fatalf("replaying %v: %v; want %v", bug.Schedule, rr.Outcome, tt.want)
			}
			if tt.logged {
				return // (its loads and stores are no steps)
			}
			memory := 0
			for _, st := range e.Trace() {
				if st.Op.API == syncmodel.APILoad || st.Op.API == syncmodel.APIStore {
					memory++
				}
			}
			if memory == 0 {
				t.Errorf("the replayed schedule %v has no load or store step", bug.Schedule)
			}
		})
	}
}

// TestUninstrumentedMissesTheLostUpdate is the reason for the
// instrumentation: the plain build of the same program is exhausted
// without a bug, since no thread can be switched inside x++.
func TestUninstrumentedMissesTheLostUpdate(t *testing.T) {
	useExampleCache(t)
	exe, err := ctarget.Build(filepath.Join(memoryDir, "lost-update.c"))
	if err != nil {
		t.Fatal(err)
	}
	c := startExample(t, exe)
	res := exploreExample(t, c, 1000, false)
	if len(res.Bugs) != 0 || !res.Complete || res.DepthLimited {
		t.Fatalf("plain build: bugs %v, complete %v; want none, complete (the instrumentation is what finds it)", res.Bugs, res.Complete)
	}
}
