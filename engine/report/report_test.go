package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	ct "github.com/stdbg/stdbg/engine/executor/executortest"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/internal/symbolize"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// syms resolves the fake's addresses: code 0x1NN is user code at line NN of
// prog.c, data 0x1000 is the global "left".
type syms struct{}

func (syms) Return(pc uint64) symbolize.Frame {
	if pc >= 0x100 && pc < 0x300 {
		return symbolize.Frame{PC: pc, Func: "worker", File: "/src/prog.c", Line: int(pc & 0xff)}
	}
	return symbolize.Frame{PC: pc, Module: "/lib/libc.so.6", Func: "start_thread"}
}
func (s syms) Exact(pc uint64) symbolize.Frame { return s.Return(pc) }
func (syms) Data(addr uint64) (string, bool) {
	if addr == 0x1000 {
		return "left", true
	}
	return "", false
}

func step(kind syncmodel.Kind, api syncmodel.API, obj, pc uint64) ct.Step {
	return ct.Op(kind, api, obj, pc)
}

func execute(t *testing.T, rt *ct.Runtime, sched string) *executor.Execution {
	t.Helper()
	return ct.Run(t, rt, executor.Options{}, sched)
}

func TestDeadlockReport(t *testing.T) {
	rt := &ct.Runtime{
		Main: []ct.Step{
			step(syncmodel.ThreadCreate, syncmodel.APIPthreadCreate, 0, 0x10a),
			step(syncmodel.MutexLock, syncmodel.APIMutexLock, 0x1000, 0x10b),
			step(syncmodel.MutexLock, syncmodel.APIMutexLock, 0x2000, 0x10c),
		},
		Children: [][]ct.Step{{
			step(syncmodel.MutexLock, syncmodel.APIMutexLock, 0x2000, 0x214),
			step(syncmodel.MutexLock, syncmodel.APIMutexLock, 0x1000, 0x215),
		}},
	}
	e := execute(t, rt, "1;1;2")
	r := report.Build(e, e.Ended(), syms{})
	var buf bytes.Buffer
	r.WriteText(&buf)
	out := buf.String()
	for _, want := range []string{
		"*** DEADLOCK DETECTED ***\n",
		"Path = 1;1;2\n",
		"step 1  thread 1  pthread_create -> thread 2",
		"step 2  thread 1  pthread_mutex_lock(left)",
		"step 3  thread 2  pthread_mutex_lock(mutex#1)",
		"prog.c:11",
		"thread 1 waits in pthread_mutex_lock for mutex#1 (held by thread 2)",
		"thread 2 waits in pthread_mutex_lock for left (held by thread 1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if r.Preemptions != 1 {
		t.Errorf("preemptions %d, want 1", r.Preemptions)
	}
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back report.Report
	if err := json.Unmarshal(b, &back); err != nil || back.Path != "1;1;2" || len(back.Steps) != 3 || len(back.Waits) != 2 {
		t.Errorf("JSON round trip: %v %+v", err, back)
	}
}

func TestCalls(t *testing.T) {
	tests := []struct {
		name  string
		main  []ct.Step
		want  string
		sched string
	}{
		{"choose", []ct.Step{{Op: syncmodel.Op{Kind: syncmodel.Choose, API: syncmodel.APIStdbgChoose, Arg: 3}, PC: 0x101}}, "stdbg_choose(3) = 2", "1:2"},
		{"write", []ct.Step{{Op: syncmodel.Op{Kind: syncmodel.Write, API: syncmodel.APIStdbgWrite, Obj: 0x1000, Arg: 4}, PC: 0x101}}, "stdbg_write(&left, 4)", ""},
		{"trylock busy", []ct.Step{
			step(syncmodel.MutexLock, syncmodel.APIMutexLock, 0x1000, 0x101),
			step(syncmodel.MutexTrylock, syncmodel.APIMutexTrylock, 0x1000, 0x102),
		}, "pthread_mutex_trylock(left) = EBUSY", ""},
		{"sem value", []ct.Step{
			{Op: syncmodel.Op{Kind: syncmodel.SemInit, API: syncmodel.APISemInit, Obj: 0x3000, Arg: 2}, PC: 0x101},
			step(syncmodel.SemGetvalue, syncmodel.APISemGetvalue, 0x3000, 0x102),
		}, "sem_getvalue(sem#1) = 2", ""},
		{"main returns", []ct.Step{{Op: syncmodel.Op{Kind: syncmodel.Exit, API: syncmodel.APIMainReturn, Arg: 3}, PC: 0x101}}, "main returns 3", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			main := append(tt.main, ct.Step{Op: syncmodel.Op{Kind: syncmodel.Yield, API: syncmodel.APISchedYield}, PC: 0x1ff})
			sched := tt.sched
			if sched == "" {
				sched = strings.Repeat("1;", len(tt.main)-1) + "1"
			}
			e := execute(t, &ct.Runtime{Main: main}, sched)
			r := report.Build(e, e.Ended(), syms{})
			last := r.Steps[len(r.Steps)-1].Call
			if last != tt.want {
				t.Errorf("call %q, want %q", last, tt.want)
			}
		})
	}
}

func TestFailureReport(t *testing.T) {
	rt := &ct.Runtime{Main: []ct.Step{
		step(syncmodel.Yield, syncmodel.APISchedYield, 0, 0x105),
		{Fail: &wire.Failure{Kind: wire.FailSignal, Signal: 11, Message: "Segmentation fault", Frames: []uint64{0x107, 0x400}}},
	}}
	e := execute(t, rt, "1")
	r := report.Build(e, e.Ended(), syms{})
	if r.Failure == nil || r.Failure.Where.Line != 7 || len(r.Stack) != 2 || !r.Stack[0].User || r.Stack[1].User {
		t.Fatalf("failure %+v stack %+v", r.Failure, r.Stack)
	}
	var buf bytes.Buffer
	r.WriteText(&buf)
	if !strings.Contains(buf.String(), "*** CRASH IN THE PROGRAM ***") || !strings.Contains(buf.String(), "#0 worker (/src/prog.c:7)") {
		t.Errorf("text:\n%s", buf.String())
	}
}

func TestMaxDepthReport(t *testing.T) {
	e := execute(t, &ct.Runtime{Main: []ct.Step{step(syncmodel.Yield, syncmodel.APISchedYield, 0, 0x101), step(syncmodel.Yield, syncmodel.APISchedYield, 0, 0x102)}}, "1")
	r := report.Build(e, nil, syms{})
	if r.Bug || r.Kind != "max-depth" || !strings.Contains(r.Banner, "Max depth") {
		t.Errorf("report %+v", r)
	}
}

func TestCleanAndStyle(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"tab\tstays", "tab\tstays"},
		{"\x1b[2Jcleared", `\x1b[2Jcleared`},
		{"over\rwrite", `over\x0dwrite`},
		{"bell\a", `bell\x07`},
		{"c1 \u009b csi", `c1 \x9b csi`},
		{"naïve ünïcode", "naïve ünïcode"},
	} {
		if got := report.Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		headline    string
		bug, colour bool
		want        string
	}{
		{"*** DEADLOCK DETECTED ***", true, false, "*** DEADLOCK DETECTED ***"},
		{"*** DEADLOCK DETECTED ***", true, true, "\x1b[1;31m*** DEADLOCK DETECTED ***\x1b[0m"},
		{"No property violation found.", false, true, "\x1b[1;32mNo property violation found.\x1b[0m"},
		{"/!\\ Max depth reached ! /!\\", false, true, "\x1b[1;33m/!\\ Max depth reached ! /!\\\x1b[0m"},
	} {
		if got := report.Style(c.headline, c.bug, c.colour); got != c.want {
			t.Errorf("Style(%q, %v, %v) = %q, want %q", c.headline, c.bug, c.colour, got, c.want)
		}
	}
}

// A message of several lines (a test's log under "the test failed", as
// go test prints testify's message) keeps its lines apart, each cleaned.
func TestMultiLineMessage(t *testing.T) {
	r := &report.Report{Banner: "*** PROPERTY NOT VALID: ASSERTION FAILED ***", Bug: true, Kind: "assertion",
		Message: "the test failed (t.Error or t.Fail):\n    x_test.go:12: \n        \tError:      \tNot equal: \n        \tMessages:   \tboth \x1b[2Jcounted\n",
		Path:    "1;2"}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "the test failed (t.Error or t.Fail):\n    x_test.go:12: \n        \tError:      \tNot equal: \n        \tMessages:   \tboth \\x1b[2Jcounted\nPath = 1;2\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("report:\n%s\nwant it to hold:\n%s", b.String(), want)
	}
}

func TestSummary(t *testing.T) {
	goRace := "WARNING: DATA RACE\nWrite at 0x00c00006c0b0 by goroutine 11:\n  pkg.(*R).Scan.1()\n      /src/pkg/r.go:49 +0x51\n  internal/sync.iter()\n      /go/src/internal/sync/h.go:512 +0x1\n\n" +
		"Previous read at 0x00c00006c0b0 by goroutine 10:\n  pkg.(*R).Seen()\n      /src/pkg/r.go:55 +0x164\n\nGoroutine 11 (running) created at:\n  x()\n      /src/x.go:1 +0x1\n"
	tests := []struct{ in, want string }{
		{"assertion failed: x > 0", "assertion failed: x > 0"},
		{"bell\a", `bell\x07`},
		{goRace, "write by goroutine 11 at r.go:49; previous read by goroutine 10 at r.go:55"},
		// A map access: the runtime's frame is not where the program is.
		{"WARNING: DATA RACE\nWrite at 0x00c00001b080 by goroutine 12:\n  runtime.mapassign_faststr()\n      /go/src/internal/runtime/maps/runtime_faststr.go:263 +0x0\n" +
			"  pkg.TestMap.func1()\n      /src/pkg/m_test.go:21 +0xaf\n\nPrevious read at 0x00c00001b080 by goroutine 11:\n  runtime.mapaccess1_faststr()\n      /go/src/internal/runtime/maps/runtime_faststr.go:13 +0x0\n" +
			"  pkg.TestMap()\n      /src/pkg/m_test.go:25 +0xaf\n",
			"write by goroutine 12 at m_test.go:21; previous read by goroutine 11 at m_test.go:25"},
		// Only runtime frames: the first one still says where.
		{"WARNING: DATA RACE\nWrite at 0x1 by goroutine 2:\n  runtime.f()\n      /go/src/runtime/f.go:3 +0x0\n\nPrevious write at 0x1 by goroutine 1:\n  runtime.g()\n      /go/src/runtime/g.go:4 +0x0\n",
			"write by goroutine 2 at f.go:3; previous write by goroutine 1 at g.go:4"},
		// A send and a close that race: stdbg's runtime tells the
		// detector of their accesses to the channel, under the
		// program's frames.
		{"WARNING: DATA RACE\nRead at 0x1 by goroutine 14:\n  github.com/stdbg/stdbg/sthread/internal/rt.sendReadsChannel()\n      /s/sthread/internal/rt/race.go:190 +0x0\n" +
			"  pkg.TestSend.func1()\n      /src/pkg/s_test.go:43 +0x1\n\nPrevious write at 0x1 by goroutine 13:\n" +
			"  github.com/stdbg/stdbg/sthread/internal/rt.closeWritesChannel()\n      /s/sthread/internal/rt/race.go:194 +0x0\n  pkg.TestSend()\n      /src/pkg/s_test.go:46 +0x1\n",
			"read by goroutine 14 at s_test.go:43; previous write by goroutine 13 at s_test.go:46"},
		{"first line\nsecond line", "first line"},
	}
	for _, tt := range tests {
		if got := report.Summary(tt.in); got != tt.want {
			t.Errorf("Summary(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestMinimisationString checks the Minimised line, proven or not, with
// what was proven when the proof stopped.
func TestMinimisationString(t *testing.T) {
	tests := []struct {
		m    report.Minimisation
		want string
	}{
		{report.Minimisation{FromLength: 8, FromPreemptions: 1, Length: 4, Preemptions: 1, Proven: true, Executions: 14,
			LowerLength: 4, LowerPreemptions: 1},
			"Minimised from 8 steps, 1 preemption to 4 steps, 1 preemption (proven minimal, 14 executions)"},
		{report.Minimisation{FromLength: 24, FromPreemptions: 5, Length: 24, Preemptions: 2, Executions: 20000,
			LowerLength: 24, LowerPreemptions: 1, Unproven: "budget spent"},
			"Minimised from 24 steps, 5 preemptions to 24 steps, 2 preemptions (not proven minimal: budget spent; " +
				"no schedule is shorter, none as long has fewer than 1 preemption, 20000 executions)"},
		{report.Minimisation{FromLength: 24, FromPreemptions: 5, Length: 20, Preemptions: 2, Executions: 20000,
			LowerLength: 12, Unproven: "budget spent"},
			"Minimised from 24 steps, 5 preemptions to 20 steps, 2 preemptions (not proven minimal: budget spent; " +
				"proven: at least 12 steps, 20000 executions)"},
		{report.Minimisation{FromLength: 9, FromPreemptions: 2, Length: 5, Preemptions: 1, Executions: 3},
			"Minimised from 9 steps, 2 preemptions to 5 steps, 1 preemption (not proven minimal: budget spent; " +
				"no lower bound proven, 3 executions)"},
	}
	for _, tt := range tests {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
}
