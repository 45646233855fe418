package debug

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-delve/delve/service/api"
	"github.com/go-delve/delve/service/rpc2"

	"github.com/stdbg/stdbg/debug/dlvbridge"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// needDlv makes stdbg use the real Delve: dlv on PATH (CI installs it),
// else the pinned version, built once per test run into the directory
// TestMain owns. These tests never skip.
func needDlv(t *testing.T) {
	t.Helper()
	dlvOnce.Do(func() {
		if p, err := dlvbridge.Find(""); err == nil {
			dlvPath = p
			return
		}
		dir := filepath.Join(clirun.Dir(), "dlv")
		if dlvErr = os.MkdirAll(dir, 0o755); dlvErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		dlvPath, dlvErr = dlvbridge.Build(ctx, dir)
	})
	if dlvErr != nil {
		t.Fatalf("no dlv on PATH and building it failed: %v", dlvErr)
	}
	// Set once for the whole run (the tests run in parallel): every
	// test that needs Delve uses this one.
	dlvEnvOnce.Do(func() { os.Setenv("STDBG_DLV", dlvPath) })
}

var (
	dlvEnvOnce sync.Once
	dlvOnce    sync.Once
	dlvPath    string
	dlvErr     error
)

// dlvStepRE matches a step line of replay --dlv.
var dlvStepRE = regexp.MustCompile(`(?m)^step (\d+)/(\d+)  thread (\d+)  goroutine (\d+)  .*?  (\S+\.go):(\d+)  `)

// dlvStep is one parsed step line.
type dlvStep struct {
	k, n, thread int
	goroutine    int64
	file         string
	line         int
}

func parseDlvSteps(out string) []dlvStep {
	var steps []dlvStep
	for _, m := range dlvStepRE.FindAllStringSubmatch(out, -1) {
		var s dlvStep
		s.k, _ = strconv.Atoi(m[1])
		s.n, _ = strconv.Atoi(m[2])
		s.thread, _ = strconv.Atoi(m[3])
		s.goroutine, _ = strconv.ParseInt(m[4], 10, 64)
		s.file = m[5]
		s.line, _ = strconv.Atoi(m[6])
		steps = append(steps, s)
	}
	return steps
}

// nativeReport runs replay --json and returns the report, skipping the
// program's own output before it.
func nativeReport(t *testing.T, args ...string) *report.Report {
	t.Helper()
	out, errs, _ := clirun.Stdbg(t, append([]string{"replay", "--json"}, args...)...)
	if i := strings.Index(out, "\n{\n"); i >= 0 && !strings.HasPrefix(out, "{") {
		out = out[i+1:]
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("replay --json: %v\n%s\n%s", err, out, errs)
	}
	return &r
}

// TestReplayDlv replays bugs of the Go examples under the real Delve: at
// every step Delve stops in the goroutine of the thread the checker's
// trace names, at the trace's source line, and the failure reproduces
// after the last step.
func TestReplayDlv(t *testing.T) {
	t.Parallel()
	needDlv(t)
	goEx := filepath.Join(clirun.Root(), "examples", "go")
	corpusDir := t.TempDir()
	out, errs, code := clirun.Stdbg(t, "find", "--no-save=false", "--corpus", corpusDir, filepath.Join(goEx, "embrace-prog"))
	entry := clirun.LastSaved(out)
	if code != cli.ExitBug || entry == "" {
		t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
	}
	tests := []struct {
		name    string
		args    []string // after replay --dlv / replay --json
		outcome string
		// long: only with -e2e.long. Each target is a debugging build
		// of its own; what these add is asserted by the other cases and
		// by TestReplayDlvPlainGoTests (a data race of a plain Go test,
		// built with the race detector for Delve).
		long bool
	}{
		{"embrace-prog entry", []string{entry}, "deadlock: ", false},
		{"embrace-test", []string{"--schedule", "1;1;1;2;2;3;3", "--run", "TestEmbrace", filepath.Join(goEx, "embrace-test")}, "deadlock: ", false},
		{"leak-prog", []string{"--schedule", "1;1;2;2;2;1;1;3;3", filepath.Join(goEx, "leak-prog")}, "leak: ", true},
		// A plain program, built with the race detector for Delve too.
		{"plain counter, data race", []string{"--schedule", "1;1;1;1;2;2;2;3;3;3", filepath.Join(goEx, "plain", "counter")}, "data-race: WARNING: DATA RACE", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.long && !clirun.Long() {
				t.Skip("a debugging build of its own for a behaviour the other cases assert: run with -e2e.long")
			}
			checkDlvReplay(t, tt.args, tt.outcome, true)
		})
	}
}

// checkDlvReplay runs replay --dlv --stop-at none with args and checks it
// against stdbg's own replay (replay --json): Delve stops once per step
// of the trace, in the thread the trace names, at the trace's file and
// line, and the execution ends with outcome (its kind and ": ") and the
// program's exit status 1. With oneGoroutine, each thread stays in one
// goroutine and no two threads share one (a subtest runs a thread's
// steps on the subtest's goroutine).
func checkDlvReplay(t *testing.T, args []string, outcome string, oneGoroutine bool) {
	t.Helper()
	want := nativeReport(t, args...)
	if !want.Bug || len(want.Steps) == 0 {
		t.Fatalf("stdbg's own replay shows no bug: %+v", want)
	}
	out, errs, code := clirun.Stdbg(t, append([]string{"replay", "--dlv", "--stop-at", "none"}, args...)...)
	if code != cli.ExitBug {
		t.Fatalf("replay --dlv: exit %d, want %d\n%s\n%s", code, cli.ExitBug, out, errs)
	}
	got := parseDlvSteps(out)
	if len(got) != len(want.Steps) {
		t.Fatalf("Delve stopped at %d steps, the trace has %d:\n%s", len(got), len(want.Steps), out)
	}
	goroutineOf := map[int]int64{}
	for i, g := range got {
		w := want.Steps[i]
		if g.k != i+1 || g.n != len(want.Steps) || g.thread != w.Thread {
			t.Errorf("line %d: step %d/%d thread %d; want step %d/%d thread %d", i+1, g.k, g.n, g.thread, i+1, len(want.Steps), w.Thread)
		}
		if g.file != filepath.Base(w.Where.File) || g.line != w.Where.Line {
			t.Errorf("step %d: Delve shows thread %d at %s:%d, the trace at %s:%d", g.k, g.thread, g.file, g.line, filepath.Base(w.Where.File), w.Where.Line)
		}
		if prev, ok := goroutineOf[g.thread]; ok && prev != g.goroutine && oneGoroutine {
			t.Errorf("step %d: thread %d in goroutine %d, before in %d", g.k, g.thread, g.goroutine, prev)
		}
		goroutineOf[g.thread] = g.goroutine
	}
	seen := map[int64]int{}
	for th, g := range goroutineOf {
		if other, ok := seen[g]; ok {
			t.Errorf("threads %d and %d both in goroutine %d", th, other, g)
		}
		seen[g] = th
	}
	end := "end after step " + strconv.Itoa(len(want.Steps)) + "/" + strconv.Itoa(len(want.Steps)) + ": " + outcome
	if !strings.Contains(out, end) || !strings.Contains(out, "The program exited with status 1.") {
		t.Errorf("output lacks %q and the exit:\n%s", end, out)
	}
}

// TestReplayDlvStopAt hands the process over at a step: another client
// finds the thread's goroutine selected, reads a variable of the program
// and the replay position, and runs on to the failure.
func TestReplayDlvStopAt(t *testing.T) {
	t.Parallel()
	needDlv(t)
	prog := filepath.Join(clirun.Root(), "examples", "go", "embrace-prog")
	pr, pw := io.Pipe()
	var errb strings.Builder
	done := make(chan int, 1)
	go func() {
		code := cli.Run([]string{"replay", "--dlv", "--stop-at", "2", "--dlv-no-connect", "--dlv-wait", "2m", "--schedule", "1;1;2;2", prog}, nil, pw, &errb)
		pw.Close()
		done <- code
	}()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, pr)
	}()
	stopRE := regexp.MustCompile(`^Stopped before step 2/4: thread 1 \(goroutine (\d+), selected\) is about to run it at main\.go:22 \(frame (\d+)\)\.$`)
	waitRE := regexp.MustCompile(`^Delve waits for a client .*: \S+ connect --init (\S+) (\S+)$`)
	var goroutine int64
	var frame int
	var addr, init string
	var all strings.Builder
	timeout := time.After(3 * time.Minute)
	for addr == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stdbg ended before handing over:\n%s\n%s", all.String(), errb.String())
			}
			all.WriteString(l + "\n")
			if m := stopRE.FindStringSubmatch(l); m != nil {
				goroutine, _ = strconv.ParseInt(m[1], 10, 64)
				frame, _ = strconv.Atoi(m[2])
			}
			if m := waitRE.FindStringSubmatch(l); m != nil {
				init, addr = m[1], m[2]
			}
		case <-timeout:
			t.Fatalf("no hand-over within 3 minutes:\n%s", all.String())
		}
	}
	go func() {
		for l := range lines {
			_ = l
		}
	}()
	if goroutine == 0 {
		t.Fatalf("no stop line before the hand-over:\n%s", all.String())
	}
	c := rpc2.NewClient(addr)
	st, err := c.GetState()
	if err != nil {
		t.Fatal(err)
	}
	if st.SelectedGoroutine == nil || st.SelectedGoroutine.ID != goroutine {
		t.Errorf("selected goroutine %+v, want %d", st.SelectedGoroutine, goroutine)
	}
	cfg := api.LoadConfig{MaxStringLen: 64, MaxArrayValues: 64, MaxStructFields: -1, MaxVariableRecurse: 1}
	v, err := c.EvalVariable(api.EvalScope{GoroutineID: goroutine, Frame: frame}, "transfers", cfg)
	if err != nil || v.Value != "0" {
		t.Errorf("transfers before step 2 = %+v, %v; want 0", v, err)
	}
	v, err = c.EvalVariable(api.EvalScope{GoroutineID: goroutine}, `"github.com/stdbg/stdbg/sthread".debugState.Thread`, cfg)
	if err != nil || v.Value != "1" {
		t.Errorf("debugState.Thread = %+v, %v; want 1", v, err)
	}
	// The user's session: dlv connect with stdbg's commands, stepping to
	// the deadlock and on to the end. (The first client stays connected
	// until then: a session whose last client left is ended.)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dlv := exec.CommandContext(ctx, os.Getenv("STDBG_DLV"), "connect", "--init", init, addr)
	dlv.Stdin = strings.NewReader("stdbg_next\nstdbg_where\nstdbg_next\nstdbg_next\ncontinue\nexit\ny\n")
	session, err := dlv.CombinedOutput()
	c.Disconnect(false)
	text := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(string(session), "")
	if err != nil {
		t.Fatalf("dlv connect: %v\n%s", err, text)
	}
	for _, want := range []string{
		fmt.Sprintf(`stdbg: step 2/4: thread 1, goroutine %d\n`, goroutine),
		`=>\s+22:\s+a\.Lock\(\)`,
		`stdbg: step 3/4: thread 2, goroutine \d+\n`,
		`stdbg: step 4/4: thread 2, goroutine \d+\n`,
		`=>\s+15:\s+b\.Lock\(\)`,
		`stdbg: after the last step \(4/4\): deadlock: no thread can go on`,
		`has exited with status 1`,
	} {
		if !regexp.MustCompile(want).MatchString(text) {
			t.Errorf("the Delve session lacks %s:\n%s", want, text)
		}
	}
	select {
	case code := <-done:
		if code != cli.ExitClean {
			t.Errorf("stdbg: exit %d after the session ended\n%s", code, errb.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("stdbg did not return after the session ended")
	}
}

// A client that connects and leaves without ending the program ends the
// session: stdbg stops Delve and returns long before --dlv-wait.
func TestReplayDlvClientLeaves(t *testing.T) {
	t.Parallel()
	needDlv(t)
	sock := filepath.Join(t.TempDir(), "dlv.sock")
	for _, tc := range []struct {
		name   string
		listen []string
	}{
		{"loopback", nil},
		{"unix socket", []string{"--dlv-listen", "unix:" + sock}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := filepath.Join(clirun.Root(), "examples", "go", "embrace-prog")
			pr, pw := io.Pipe()
			var errb strings.Builder
			done := make(chan int, 1)
			args := append([]string{"replay", "--dlv", "--dlv-no-connect", "--dlv-wait", "30m"}, tc.listen...)
			go func() {
				code := cli.Run(append(args, "--schedule", "1;1;2;2", prog), nil, pw, &errb)
				pw.Close()
				done <- code
			}()
			waitRE := regexp.MustCompile(`^Delve waits for a client .*: \S+ connect --init \S+ (\S+)$`)
			sc := bufio.NewScanner(pr)
			addr := ""
			for addr == "" && sc.Scan() {
				if m := waitRE.FindStringSubmatch(sc.Text()); m != nil {
					addr = m[1]
				}
			}
			go io.Copy(io.Discard, pr)
			if addr == "" {
				t.Fatalf("no hand-over: %s", errb.String())
			}
			network, where := "tcp", addr
			if path, ok := strings.CutPrefix(addr, "unix:"); ok {
				network, where = "unix", path
				if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
					t.Errorf("the socket %s: %v, mode %v; want 0600", path, err, st.Mode().Perm())
				}
			} else if !strings.HasPrefix(addr, "127.0.0.1:") {
				t.Errorf("Delve listens at %s, not on loopback", addr)
			}
			conn, err := net.Dial(network, where)
			if err != nil {
				t.Fatal(err)
			}
			c := rpc2.NewClientFromConn(conn)
			if _, err := c.GetState(); err != nil {
				t.Fatal(err)
			}
			if err := c.Disconnect(false); err != nil {
				t.Fatal(err)
			}
			select {
			case code := <-done:
				if code != cli.ExitClean {
					t.Errorf("stdbg: exit %d after the client left\n%s", code, errb.String())
				}
			case <-time.After(5 * time.Minute): // a guard against a hang only
				t.Fatal("stdbg still waits after its client left")
			}
			if network == "unix" {
				if _, err := os.Lstat(where); err == nil {
					t.Errorf("the socket %s is left behind", where)
				}
			}
		})
	}
}

func TestReplayDlvBadInput(t *testing.T) {
	t.Parallel()
	prog := filepath.Join(clirun.Root(), "examples", "go", "embrace-prog")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"C target", []string{"--schedule", "1;1;2;2", clirun.Example("deadly-embrace.c")}, "use --gdb"},
		{"listen on every interface", []string{"--dlv-listen", "0.0.0.0:0", "--schedule", "1;1;2;2", prog}, "not a loopback address"},
		{"listen on a socket that exists", []string{"--dlv-listen", "unix:" + prog, "--schedule", "1;1;2;2", prog}, "exists"},
		{"step past the end", []string{"--stop-at", "9", "--schedule", "1;1;2;2", prog}, "the run has 4 steps"},
		{"not a step", []string{"--stop-at", "soon", "--schedule", "1;1;2;2", prog}, "want a step number"},
		{"with --gdb", []string{"--gdb", "--schedule", "1;1;2;2", prog}, "give one"},
		{"no entry", []string{prog}, "needs a corpus entry"},
	}
	needDlv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := clirun.Stdbg(t, append([]string{"replay", "--dlv"}, tt.args...)...)
			if code != cli.ExitUsage || !strings.Contains(errs, tt.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
				t.Errorf("exit %d, stderr %q; want exit %d and one line with %q\n%s", code, errs, cli.ExitUsage, tt.want, out)
			}
		})
	}
}
