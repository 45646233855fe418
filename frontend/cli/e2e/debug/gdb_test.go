package debug

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/frontend/session"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
	"github.com/stdbg/stdbg/internal/testkit/long"
)

// gdbTimeout bounds every GDB session of these tests: a GDB that hangs
// fails the test. It is no measure of speed: on a machine busy with other
// work the 2,000 breakpoint stops of TestReplayGDBLongSchedule took over
// two minutes (load 27 on 2 CPUs), so the bound is far above what any
// session needs on a working machine.
const gdbTimeout = 10 * time.Minute

// needGDB returns GDB's path. These tests drive the real GDB: without it
// they fail (CI installs it), they never skip.
func needGDB(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("gdb")
	if err != nil {
		t.Fatalf("gdb not found on PATH (%v): the replay --gdb tests drive the real GDB; install it (apt-get install gdb)", err)
	}
	return p
}

// batchGDB runs GDB in batch mode on script, then the commands.
func batchGDB(t *testing.T, script string, cmds ...string) string {
	t.Helper()
	gdb := needGDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), gdbTimeout)
	defer cancel()
	args := []string{"-q", "-nx", "-batch", "-iex", "set debuginfod enabled off", "-x", script}
	for _, c := range cmds {
		args = append(args, "-ex", c)
	}
	cmd := exec.CommandContext(ctx, gdb, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("gdb did not finish within %v:\n%s", gdbTimeout, out.String())
	}
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out.String())
	}
	return out.String()
}

// replayReport runs replay --json and returns the report of the run.
func replayReport(t *testing.T, args ...string) *report.Report {
	t.Helper()
	out, errs, _ := clirun.Stdbg(t, append([]string{"replay", "--json"}, args...)...)
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("replay --json: %v\n%s\n%s", err, out, errs)
	}
	return &r
}

// writeScript runs replay --gdb-script and returns the script's path.
func writeScript(t *testing.T, args ...string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "replay.gdb")
	out, errs, code := clirun.Stdbg(t, append([]string{"replay", "--gdb-script", script}, args...)...)
	if code != cli.ExitClean {
		t.Fatalf("replay --gdb-script: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "gdb -q -x "+session.ShellQuote(script)) {
		t.Errorf("replay --gdb-script does not say how to use the script:\n%s", out)
	}
	return script
}

// driver is a Python script, sourced after the replay script, that stops
// at every step with stdbg-next and prints what a user would look at: the
// step counter, the selected thread's LWP, the LWP of every stdbg thread
// (read independently from stdbg_thread_ostids) and the selected frame.
const driver = `python
import os
import gdb

def fact(tag):
    k = int(gdb.parse_and_eval("$counter"))
    lwp = gdb.selected_thread().ptid[1]
    ost = [int(gdb.parse_and_eval("((int *) &stdbg_thread_ostids)[%%d]" %% i)) for i in range(0, 8)]
    sal = gdb.selected_frame().find_sal()
    name = os.path.basename(sal.symtab.filename) if sal.symtab else ""
    print("FACT %%s counter=%%d lwp=%%d file=%%s line=%%d ostids=%%s" %% (tag, k, lwp, name, sal.line, ",".join(map(str, ost))))

for _ in range(%d):
    fact("step")
    gdb.execute("stdbg-next")
fact("end")
for th in gdb.selected_inferior().threads():
    th.switch()
    bt = gdb.execute("bt", to_string=True)
    print("BT lwp=%%d %%s" %% (th.ptid[1], " ".join(l.split(" in ")[-1].split(" (")[0] for l in bt.splitlines() if l.startswith("#"))))
end
`

var factRE = regexp.MustCompile(`(?m)^FACT (\w+) counter=(\d+) lwp=(\d+) file=(\S*) line=(\d+) ostids=([\d,]+)$`)

// fact is one FACT line of the driver.
type fact struct {
	tag          string
	counter, lwp int
	file         string
	line         int
	ostids       []int // LWP of each stdbg thread (index: thread id)
}

func parseFacts(t *testing.T, out string) []fact {
	t.Helper()
	var fs []fact
	for _, m := range factRE.FindAllStringSubmatch(out, -1) {
		f := fact{tag: m[1], file: m[4]}
		f.counter, _ = strconv.Atoi(m[2])
		f.lwp, _ = strconv.Atoi(m[3])
		f.line, _ = strconv.Atoi(m[5])
		for _, s := range strings.Split(m[6], ",") {
			n, _ := strconv.Atoi(s)
			f.ostids = append(f.ostids, n)
		}
		fs = append(fs, f)
	}
	return fs
}

// checkSteps drives every step of the report under GDB and checks that
// each stop selects the thread of the step, at the report's line. It
// returns the last fact (after the last step) and GDB's output.
func checkSteps(t *testing.T, script string, r *report.Report) (fact, string) {
	t.Helper()
	drv := filepath.Join(t.TempDir(), "driver.gdb")
	if err := os.WriteFile(drv, []byte(fmt.Sprintf(driver, len(r.Steps))), 0o644); err != nil {
		t.Fatal(err)
	}
	out := batchGDB(t, script, "source "+drv)
	facts := parseFacts(t, out)
	if len(facts) != len(r.Steps)+1 {
		t.Fatalf("%d stops, want %d:\n%s", len(facts), len(r.Steps)+1, out)
	}
	for i, st := range r.Steps {
		f := facts[i]
		if f.counter != st.N {
			t.Errorf("stop %d: $counter = %d, want %d", i+1, f.counter, st.N)
		}
		if st.Thread >= len(f.ostids) || f.ostids[st.Thread] == 0 || f.lwp != f.ostids[st.Thread] {
			t.Errorf("step %d: GDB selected LWP %d, stdbg thread %d is LWP %v", st.N, f.lwp, st.Thread, f.ostids)
		}
		if st.Call == "thread starts" {
			// The thread has not entered the user's code yet: there is
			// no frame of it to select.
			continue
		}
		if f.file != filepath.Base(st.Where.File) || f.line != st.Where.Line {
			t.Errorf("step %d: selected frame at %s:%d, the report says %s", st.N, f.file, f.line, st.Where.Short())
		}
	}
	return facts[len(facts)-1], out
}

func TestReplayGDBDeadlock(t *testing.T) {
	t.Parallel()
	needGDB(t)
	prog := clirun.Example("deadly-embrace.c")
	r := replayReport(t, "--schedule", "1;1;2;2", prog)
	if r.Kind != "deadlock" || len(r.Steps) != 4 || len(r.Waits) != 2 {
		t.Fatalf("unexpected report: %+v", r)
	}
	script := writeScript(t, "--schedule", "1;1;2;2", prog)
	text, _ := os.ReadFile(script)
	for _, w := range []string{"# Use:  gdb -q -x ", "set startup-with-shell off", "set environment STDBG_REPLAY=", "set environment LD_PRELOAD=", "set $trace = {1, 1, 2, 2}", "set $counter = 1"} {
		if !strings.Contains(string(text), w) {
			t.Errorf("script lacks %q", w)
		}
	}
	if _, err := os.Stat(strings.TrimSuffix(script, ".gdb") + ".decisions"); err != nil {
		t.Errorf("no decision log beside the script: %v", err)
	}

	end, out := checkSteps(t, script, r)
	// The log ends: every thread is parked, blocked in the lock the report
	// says, at the report's line.
	if end.counter != 5 || !strings.Contains(out, "the decision log ends after step 4: every thread is parked") ||
		!strings.Contains(out, "DEADLOCK DETECTED") {
		t.Errorf("no end of the log after step 4 (counter %d):\n%s", end.counter, out)
	}
	for _, w := range r.Waits {
		lwp := end.ostids[w.Thread]
		re := regexp.MustCompile(fmt.Sprintf(`stdbg thread %d  GDB thread \d+  LWP %d  #\d+ \w+ at %s`, w.Thread, lwp, regexp.QuoteMeta(w.Where.Short())))
		if !re.MatchString(out) {
			t.Errorf("thread %d is not shown waiting at %s:\n%s", w.Thread, w.Where.Short(), out)
		}
		bt := regexp.MustCompile(fmt.Sprintf(`(?m)^BT lwp=%d .*\bpthread_mutex_lock\b`, lwp))
		if !bt.MatchString(out) {
			t.Errorf("thread %d (LWP %d) is not blocked in pthread_mutex_lock:\n%s", w.Thread, lwp, out)
		}
	}
}

// TestReplayGDBDiverged edits the decision log so that step 4 no longer
// fits: the replay stops there and says so.
func TestReplayGDBDiverged(t *testing.T) {
	t.Parallel()
	needGDB(t)
	script := writeScript(t, "--schedule", "1;1;2;2", clirun.Example("deadly-embrace.c"))
	log := strings.TrimSuffix(script, ".gdb") + ".decisions"
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), "\n2 6 0\n", "\n2 9 0\n", 1) // thread 2 unlocks?
	if bad == string(b) {
		t.Fatalf("unexpected log:\n%s", b)
	}
	os.WriteFile(log, []byte(bad), 0o644)
	out := batchGDB(t, script, "stdbg-goto end", "stdbg-where", "print $counter",
		`python exec("try:\n gdb.execute('stdbg-next')\nexcept gdb.error as e:\n print('ERROR', e)")`)
	for _, w := range []string{
		"stdbg: replay diverged at step 4: thread 2 is at another operation",
		"stdbg: the replay diverged at step 4: the program no longer fits the decision log",
		"The replay diverged at step 4 of 4",
		"$1 = 4",
		"ERROR the replay diverged at step 4: every thread is parked for good",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("gdb output lacks %q:\n%s", w, out)
		}
	}
}

// leader is a leader election without a lock: both candidates may claim
// leadership, and the second to check its claim fails an assertion.
const leader = `#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

static volatile bool leader[2];

static void *candidate(void *arg)
{
	int me = (int)(intptr_t)arg;
	sched_yield();
	if (!leader[1 - me]) {
		sched_yield();
		leader[me] = true;
		sched_yield();
		assert(!leader[1 - me] && "at most one leader");
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (intptr_t i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, candidate, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("leaders: %d %d\n", leader[0], leader[1]);
	return 0;
}
`

func TestReplayGDBAssertion(t *testing.T) {
	t.Parallel()
	needGDB(t)
	prog := clirun.WriteFile(t, t.TempDir(), "leader.c", leader)
	const sched = "1;1;2;2;3;3;2;3;2" // both start and check, both claim, then thread 2 checks again
	// (--memory=false: the plain program. Instrumented, its unguarded
	// flags are a data race, reported before the assertion.)
	r := replayReport(t, "--memory=false", "--schedule", sched, prog)
	if r.Kind != "assertion" || len(r.Steps) != 9 || r.Failure == nil {
		t.Fatalf("the schedule does not fail the assertion: %+v", r)
	}
	script := writeScript(t, "--memory=false", "--schedule", sched, prog)
	_, out := checkSteps(t, script, r)
	for _, w := range []string{
		"Assertion `!leader[1 - me] && \"at most one leader\"' failed.",
		"received signal SIGABRT",
		fmt.Sprintf("stdbg: thread %d [GDB thread", r.Failure.Thread),
		"received SIGABRT during step 9 of 9",
		"PROPERTY NOT VALID",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("gdb output lacks %q:\n%s", w, out)
		}
	}
	// The failing thread's frame in the user's code is selected: the
	// assert's line.
	frame := regexp.MustCompile(fmt.Sprintf(`(?m)^#\d+ .* in candidate \(.*\) at .*leader\.c:%d$`, r.Failure.Where.Line))
	if !frame.MatchString(out) {
		t.Errorf("the assert's frame (leader.c:%d) is not shown:\n%s", r.Failure.Where.Line, out)
	}
}

// TestReplayGDBLongSchedule replays a schedule longer than the default
// depth bound (1,000), with the --max-depth it needs: 1,200 steps, 2,000
// with -e2e.long. $trace must hold them all and stdbg-goto must get there
// in bounded time.
func TestReplayGDBLongSchedule(t *testing.T) {
	t.Parallel()
	needGDB(t)
	n := long.Size(1200, 2000)
	steps := []string{"1"}
	for i := 1; i < n; i++ {
		steps = append(steps, strconv.Itoa(1+i%2))
	}
	sched := strings.Join(steps, ";")
	last := strconv.Itoa(n)
	script := writeScript(t, "--max-depth", last, "--schedule", sched, clirun.Example("yield-loop.c"))
	out := batchGDB(t, script, "print $trace[0]", "print $trace["+strconv.Itoa(n-1)+"]", "print sizeof($trace)/sizeof($trace[0])",
		"stdbg-goto "+last, "print $counter", "stdbg-where", "stdbg-next", "print $counter", "stdbg-where")
	for _, w := range []string{
		"$1 = 1\n", "$2 = 2\n", "$3 = " + last + "\n",
		"step " + last + " of " + last + ": thread 2  sched_yield  yield-loop.c:",
		"$4 = " + last + "\n",
		"Step " + last + " of " + last + ": thread 2 runs sched_yield",
		"the decision log ends after step " + last,
		"$5 = " + strconv.Itoa(n+1) + "\n",
		"--max-depth",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("gdb output lacks %q:\n%s", w, lastLines(out, 40))
		}
	}
}

// TestReplayGDBCommands runs replay --gdb itself, GDB reading its
// commands from a pipe, and stdbg-goto backwards (a restart).
func TestReplayGDBCommands(t *testing.T) {
	gdb := needGDB(t)
	// Bound GDB's life: replay --gdb waits for it.
	wrapper := clirun.WriteFile(t, t.TempDir(), "gdb", fmt.Sprintf("#!/bin/sh\nexec timeout -s KILL %d %s -nx -iex 'set debuginfod enabled off' \"$@\"\n", int(gdbTimeout.Seconds()), session.ShellQuote(gdb)))
	os.Chmod(wrapper, 0o755)
	t.Setenv("STDBG_GDB", wrapper)
	commands := strings.NewReader("stdbg-trace\nstdbg-goto 4\nstdbg-where\nstdbg-goto 2\nstdbg-where\nstdbg-finish\nprint transfers\nstdbg-next\nstdbg-next\nstdbg-next\nstdbg-next\nquit\n")
	out, errs, code := clirun.Input(t, commands, "replay", "--gdb", "--schedule", "1;1;2;2", clirun.Example("deadly-embrace.c"))
	if code != cli.ExitClean {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, w := range []string{
		"*** DEADLOCK DETECTED ***",
		"Starting GDB: ",
		"=> step 1    thread 1",
		"Step 4 of 4: thread 2 runs pthread_mutex_lock(second) at deadly-embrace.c:14",
		"Step 2 of 4: thread 1 runs pthread_mutex_lock(first) at deadly-embrace.c:28",
		"Value returned is",
		"$2 = 0",
		"the decision log ends after step 4",
		"the decision log ended after step 4: every thread is parked for good",
	} {
		if !strings.Contains(out+errs, w) {
			t.Errorf("output lacks %q:\n%s\n%s", w, out, errs)
		}
	}
	// The temporary directory is gone.
	m := regexp.MustCompile(`-x (\S+replay\.gdb)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no script path in %q", out)
	}
	if _, err := os.Stat(filepath.Dir(m[1])); !os.IsNotExist(err) {
		t.Errorf("%s left behind (%v)", filepath.Dir(m[1]), err)
	}
}

// TestReplayGDBEntry debugs a corpus entry.
func TestReplayGDBEntry(t *testing.T) {
	t.Parallel()
	needGDB(t)
	dir := t.TempDir()
	out, errs, code := clirun.Stdbg(t, "find", "--no-save=false", "--corpus", dir, "--max-depth", "4", clirun.Example("deadly-embrace.c"))
	if code != cli.ExitBug {
		t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(entries) != 1 {
		t.Fatalf("corpus holds %v", entries)
	}
	script := writeScript(t, entries[0])
	got := batchGDB(t, script, "stdbg-goto end", "stdbg-where")
	if !strings.Contains(got, "The decision log ended after step 4 of 4; *** DEADLOCK DETECTED ***") {
		t.Errorf("gdb output:\n%s", got)
	}
}

func TestReplayGDBErrors(t *testing.T) {
	t.Setenv("STDBG_GDB", "/nonexistent/gdb")
	_, errs, code := clirun.Stdbg(t, "replay", "--gdb", "--schedule", "1;1;2", clirun.Example("deadly-embrace.c"))
	if code != cli.ExitUsage || !strings.Contains(errs, "cannot run GDB") {
		t.Errorf("missing GDB: exit %d, %q", code, errs)
	}
	script := filepath.Join(t.TempDir(), "x.gdb")
	out, errs, code := clirun.Stdbg(t, "replay", "--gdb-script", script, "--schedule", "1;3", clirun.Example("deadly-embrace.c"))
	if code != cli.ExitUsage || !strings.Contains(out+errs, "SCHEDULE DIVERGED") {
		t.Errorf("diverging schedule: exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(script); !os.IsNotExist(err) {
		t.Errorf("a script was written for a diverging schedule")
	}
	_, errs, code = clirun.Stdbg(t, "replay", "--gdb-script", script, clirun.Example("deadly-embrace.c"))
	if code != cli.ExitUsage || !strings.Contains(errs, "corpus entry") {
		t.Errorf("no schedule: exit %d, %q", code, errs)
	}
}

// TestReplayGDBArguments passes awkward arguments from the command line
// to the program under GDB, the script and log in an awkward directory.
func TestReplayGDBArguments(t *testing.T) {
	t.Parallel()
	needGDB(t)
	dir := filepath.Join(t.TempDir(), `my "dir" \ it's`)
	os.MkdirAll(dir, 0o755)
	prog := clirun.WriteFile(t, dir, "args.c", `#include <pthread.h>
#include <stdio.h>
static void *run(void *arg) { return arg; }
int main(int argc, char **argv)
{
	pthread_t t;
	pthread_create(&t, NULL, run, NULL);
	pthread_join(t, NULL);
	for (int i = 1; i < argc; i++)
		printf("arg[%d]=<%s>\n", i, argv[i]);
	return 0;
}
`)
	args := []string{"a b", `q"uo'te`, `back\slash`, ""}
	script := filepath.Join(dir, `s c"ript.gdb`)
	out, errs, code := clirun.Stdbg(t, append([]string{"replay", "--gdb-script", script, "--schedule", "1", prog, "--"}, args...)...)
	if code != cli.ExitClean {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	got := batchGDB(t, script, "stdbg-goto end")
	var want strings.Builder
	for i, a := range args {
		fmt.Fprintf(&want, "arg[%d]=<%s>\n", i+1, a)
	}
	if !strings.Contains(got, want.String()) || !strings.Contains(got, "exited (exit status 0)") {
		t.Errorf("want\n%s\ngdb said:\n%s", want.String(), got)
	}
}

func lastLines(s string, n int) string {
	l := strings.Split(s, "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
