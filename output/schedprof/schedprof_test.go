package schedprof_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/symbolize"
	"github.com/stdbg/stdbg/internal/testkit/testcache"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/output/schedprof"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// TestMain keeps every build of the tests in a temporary cache: the test
// run's shared one, or one of the package's own (testcache).
func TestMain(m *testing.M) { os.Exit(testcache.Main(m)) }

// TestProfileOfRealProgram profiles the exhaustive search of the deadly
// embrace and checks that the profile names the program's lines with the
// counts of the search, and that go tool pprof reads it.
func TestProfileOfRealProgram(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	exe, err := ctarget.Build(filepath.Join("..", "..", "examples", "c", "deadly-embrace.c"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ctarget.Start(targetproc.Config{Binary: exe, Flags: wire.FlagFastExit | wire.FlagStacks})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var mods []symbolize.Module
	for _, m := range p.Modules() {
		mods = append(mods, symbolize.Module{Path: m.Path, Bias: m.Bias, Start: m.Start, End: m.End})
	}
	syms := symbolize.New(mods)
	defer syms.Close()
	rec := schedprof.NewRecorder(executor.New(p, executor.Options{FastExit: true}), syms)
	rec.Binary = exe
	res, err := search.Explore(context.Background(), rec, search.NewDFS(), search.Options{MaxDepth: 12, All: true})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "explore.pprof")
	if err := rec.WriteFile(path); err != nil {
		t.Fatal(err)
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	prof, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := prof.CheckValid(); err != nil {
		t.Errorf("pprof's check of the profile: %v", err)
	}
	if len(prof.Comments) != 1 || !strings.HasPrefix(prof.Comments[0], "stdbg exploration: ") || prof.DefaultSampleType != "states" ||
		prof.PeriodType == nil || prof.PeriodType.Type != "transitions" || prof.Period != 1 || prof.TimeNanos == 0 || prof.DurationNanos <= 0 {
		t.Errorf("profile's header: comments %q, default %q, period type %+v, period %d, time %d, duration %d",
			prof.Comments, prof.DefaultSampleType, prof.PeriodType, prof.Period, prof.TimeNanos, prof.DurationNanos)
	}
	var types []string
	for _, st := range prof.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	if got := strings.Join(types, " "); got != "executions/count transitions/count states/count time/nanoseconds" {
		t.Errorf("sample types %s", got)
	}
	// Sums: every transition is in exactly one sample, every execution
	// starts once.
	var transitions, states, nanos int64
	lines := map[string]int64{} // "func file:line" of the frame calling the operation -> transitions
	for _, s := range prof.Sample {
		transitions += s.Value[1]
		states += s.Value[2]
		nanos += s.Value[3]
		leaf := s.Location[0].Line[0].Function.Name
		if leaf == "(start of an execution)" {
			if s.Value[0] != res.Stats.Executions {
				t.Errorf("%d executions started, profile says %d", res.Stats.Executions, s.Value[0])
			}
			continue
		}
		if s.Value[0] < 1 || s.Value[0] > res.Stats.Executions || s.Value[1] < s.Value[0] {
			t.Errorf("%s: executions %d, transitions %d", leaf, s.Value[0], s.Value[1])
		}
		if len(s.Location) < 2 {
			if leaf != "return" { // a thread's return is called by the C library
				t.Errorf("%s: no user frame", leaf)
			}
			continue
		}
		caller := s.Location[1].Line[0]
		lines[leaf+" "+caller.Function.Name+" "+filepath.Base(caller.Function.Filename)+":"+strconv.FormatInt(caller.Line, 10)] += s.Value[1]
	}
	if transitions != res.Stats.Transitions {
		t.Errorf("profile has %d transitions, the search ran %d", transitions, res.Stats.Transitions)
	}
	// Depth first, each execution replays the path of the previous one up
	// to the backtracking point: the other steps are the tree's nodes but
	// the root.
	if states != res.Stats.States-1 {
		t.Errorf("profile has %d new states, the search visited %d besides the root", states, res.Stats.States-1)
	}
	if nanos <= 0 {
		t.Errorf("time %d ns", nanos)
	}
	for _, want := range []string{
		"pthread_create main deadly-embrace.c:26",
		"pthread_mutex_lock main deadly-embrace.c:28",
		"pthread_mutex_lock main deadly-embrace.c:29",
		"pthread_mutex_lock worker deadly-embrace.c:14",
		"pthread_mutex_lock worker deadly-embrace.c:15",
		"pthread_mutex_unlock worker deadly-embrace.c:18",
	} {
		if lines[want] == 0 {
			t.Errorf("no transitions of %s in the profile; have %v", want, lines)
		}
	}

	// go tool pprof reads it.
	out, err := exec.Command("go", "tool", "pprof", "-top", "-lines", path).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	for _, want := range []string{"pthread_mutex_lock", "worker", "deadly-embrace.c:15", "Type: states"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("go tool pprof -top lacks %q:\n%s", want, out)
		}
	}
}
