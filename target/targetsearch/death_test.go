package targetsearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/stdbg/stdbg/internal/testkit/testcache"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/target/targetsearch"
)

// dyingEnv makes the test binary a target whose search dies in its second
// execution: it kills itself, silently, with SIGKILL.
const dyingEnv = "TARGETSEARCH_TEST_DYING"

// hangingEnv makes the test binary a target that begins its search, with
// the deadlines of its budget, then hangs in a system call and never
// looks at its stop pipe (as a target blocked writing to a full pipe did).
const hangingEnv = "TARGETSEARCH_TEST_HANGING"

// twoLocksEnv makes the test binary a target of two goroutines that lock
// one mutex: two executions.
const twoLocksEnv = "TARGETSEARCH_TEST_TWO_LOCKS"

func TestMain(m *testing.M) {
	if os.Getenv(hangingEnv) != "" {
		spec, _, err := targetsearch.Requested()
		if err != nil {
			panic(err)
		}
		until := time.Now().Add(spec.Budget).UnixNano()
		b, _ := json.Marshal(targetsearch.Message{Began: &targetsearch.Began{SearchUntil: until, MinimiseUntil: until}})
		stream := os.NewFile(3, "stream")
		stream.Write(append(b, '\n'))
		var p [2]int
		syscall.Pipe(p[:])
		syscall.Read(p[0], make([]byte, 1))
		return
	}
	if os.Getenv(twoLocksEnv) != "" {
		sthread.Run(func() {
			var mu sthread.Mutex
			var n int
			done := sthread.MakeChan[bool](0)
			sthread.Go(func() {
				mu.Lock()
				n++
				mu.Unlock()
				done.Send(true)
			})
			mu.Lock()
			n++
			mu.Unlock()
			done.Recv()
		})
		return
	}
	if os.Getenv(dyingEnv) != "" {
		executions := 0
		sthread.Run(func() {
			executions++
			var mu sthread.Mutex
			turns := 0
			done := sthread.MakeChan[bool](0)
			sthread.Go(func() {
				mu.Lock()
				turns++
				mu.Unlock()
				done.Send(true)
			})
			mu.Lock()
			if turns++; executions == 2 {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
			mu.Unlock()
			done.Recv()
		})
		return
	}
	// The targets write the race detector's reports into the stdbg cache:
	// one of the tests' own, not the user's.
	os.Exit(testcache.Main(m))
}

// A target process that dies during an execution is searched again past
// the schedule when a fresh process ends at the same step; otherwise the
// death was not the schedule's and Run says so, with how the process died
// (a DeathError, which a front end takes as a reason to search with a
// fresh process per execution), never as a bare "does not repeat itself".
func TestRunTargetDies(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		// fresh is how a fresh process runs the schedule.
		fresh func(schedule.Schedule) *search.Outcome
		// said is how the DeathError says it went ("": no error, the
		// search goes on past the schedule).
		said string
		// budget, if not zero, is the search's; the replay then runs
		// until it is spent.
		budget time.Duration
	}{
		{"dies there too", func(s schedule.Schedule) *search.Outcome {
			return &search.Outcome{Kind: search.Crash, Message: "killed", Step: len(s)}
		}, "", 0},
		{"does not die", func(schedule.Schedule) *search.Outcome { return nil }, "to its end without dying", 0},
		{"diverges", func(schedule.Schedule) *search.Outcome {
			return &search.Outcome{Kind: search.Diverged, Message: "step 2: thread 2 is not there", Step: 1}
		}, "and diverged from it: step 2: thread 2 is not there", 0},
		{"ends earlier", func(schedule.Schedule) *search.Outcome {
			return &search.Outcome{Kind: search.Crash, Message: "killed", Step: 1}
		}, "and it ended at step 1 of ", 0},
		{"outlasts the budget", nil, "the budget ran out before a fresh process could run that schedule to its end", time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var replayed []string
			found, err := targetsearch.Run(context.Background(), targetsearch.Config{
				Binary: exe, Env: []string{dyingEnv + "=1"},
				Spec: targetsearch.Spec{Request: hunt.Request{Search: search.Spec{Strategy: search.StrategyDFS}, MaxDepth: 100, All: true, Budget: tt.budget}},
				Replay: func(ctx context.Context, s schedule.Schedule) (*search.Outcome, error) {
					replayed = append(replayed, s.String())
					if tt.fresh == nil {
						<-ctx.Done()
						return nil, fmt.Errorf("step 2: %w", ctx.Err())
					}
					return tt.fresh(s), nil
				},
				MaxRestarts: 1,
			})
			if len(replayed) != 1 {
				t.Fatalf("replayed %q, want the one schedule the target died in", replayed)
			}
			if tt.said == "" {
				if err != nil || len(found.Ends) != 1 || found.Ends[0].Schedule != replayed[0] {
					t.Fatalf("Run: %v, ends %v; want the search past %s", err, found, replayed[0])
				}
				return
			}
			var de *targetsearch.DeathError
			if !errors.As(err, &de) || !errors.Is(err, search.ErrNondeterministic) {
				t.Fatalf("Run: %v (%T), want a DeathError", err, err)
			}
			if de.Unknown != (tt.fresh == nil) {
				t.Errorf("unknown %v: %v", de.Unknown, err)
			}
			if de.Schedule != replayed[0] || de.How != "signal: killed, with nothing on its standard error" || !strings.HasPrefix(de.Fresh, tt.said) {
				t.Errorf("died during %s (%s), fresh: %s; want %s, killed silently, %s", de.Schedule, de.How, de.Fresh, replayed[0], tt.said)
			}
			if msg := err.Error(); !strings.Contains(msg, "signal: killed") || !strings.Contains(msg, tt.said) {
				t.Errorf("the error says %q", msg)
			}
		})
	}
}

// A target that goes on past the end of its budget (it hangs, and never
// looks at its stop pipe) is stopped a grace period later: Run returns
// with the budget spent, not when the target would have ended. (A target
// blocked in write(2) kept stdbg test --budget 3s waiting for 20 minutes.)
func TestRunTargetOverrunsItsBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	found, err := targetsearch.Run(context.Background(), targetsearch.Config{
		Binary: exe, Env: []string{hangingEnv + "=1"},
		Spec: targetsearch.Spec{Request: hunt.Request{Search: search.Spec{Strategy: search.StrategyDFS}, MaxDepth: 100, Budget: time.Second}},
		Replay: func(context.Context, schedule.Schedule) (*search.Outcome, error) {
			return nil, errors.New("no replay: the target did not die")
		},
		Grace: 500 * time.Millisecond,
	})
	if err != nil || !found.BudgetSpent || found.Complete {
		t.Fatalf("Run: %v, %+v; want the budget spent", err, found)
	}
}

// A target confined as a user of its own (stdbg grade runs a submission as
// nobody) searches in its process: it gets its trace file as a
// descriptor, not as a path in a directory of stdbg's it may not enter.
func TestRunAsAnotherUser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	if os.Geteuid() != 0 {
		t.Skip("runs the target as user nobody: needs root")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("no setpriv(1)")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A copy of the test binary that nobody may run.
	dir := t.TempDir()
	for d := dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "target")
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	found, err := targetsearch.Run(context.Background(), targetsearch.Config{
		Binary: bin, Env: []string{twoLocksEnv + "=1"}, Dir: dir,
		Wrap: []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"},
		Spec: targetsearch.Spec{Request: hunt.Request{Search: search.Spec{Strategy: search.StrategyDFS}, MaxDepth: 100, All: true}},
		Replay: func(context.Context, schedule.Schedule) (*search.Outcome, error) {
			return nil, errors.New("no target should die")
		},
	})
	if err != nil {
		t.Fatalf("Run as nobody: %v", err)
	}
	if !found.Complete || found.Stats.Executions != 2 || len(found.Bugs) != 0 {
		t.Errorf("Run as nobody: complete %v, %d executions, %d bugs; want complete, 2, none", found.Complete, found.Stats.Executions, len(found.Bugs))
	}
}
