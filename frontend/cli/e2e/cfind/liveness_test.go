package cfind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

func liveness(name string) string { return clirun.Example(filepath.Join("liveness", name)) }

func TestFindLivelockAndReplayIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, errs, code := clirun.Stdbg(t, "find", "--memory=false", "--livelock", "--no-save=false", "--corpus", dir, liveness("priority-inversion.c"))
	if code != cli.ExitBug {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, cli.ExitBug, out, errs)
	}
	for _, want := range []string{
		"*** LIVELOCK: NO PROGRESS ***",
		"Path = 1;1;1;2;2;3;4 (4;2;3;4)*",
		"-- cycle, repeated forever:",
		"thread 4  pthread_mutex_trylock(bus) = EBUSY",
		"Visited states = ",
		"Saved ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "livelock-*.json"))
	if len(entries) != 1 {
		t.Fatalf("corpus holds %v, want one livelock entry", entries)
	}
	b, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"cycle": "4;2;3;4"`) {
		t.Errorf("the entry does not store the cycle:\n%s", b)
	}
	out, errs, code = clirun.Stdbg(t, "replay", "--cycles", "3", entries[0])
	if code != cli.ExitBug {
		t.Fatalf("replay: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, cli.ExitBug, out, errs)
	}
	if !strings.Contains(out, "ran the cycle 3 times; 3 of the runs came back to the state where the cycle began") ||
		!strings.Contains(out, "step 16  [r=1 cs=0]  thread 4") {
		t.Errorf("replay output:\n%s", out)
	}
	out, errs, code = clirun.Stdbg(t, "corpus", "run", dir)
	if code != cli.ExitBug || !strings.Contains(out, "the cycle still comes back to its state") {
		t.Errorf("corpus run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

func TestFindVisitedAndLTL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"spin loop ends", []string{"find", "--memory=false", "--visited", liveness("spin-handoff.c")}, cli.ExitClean,
			[]string{"No property violation found.", "Visited states = "}},
		{"peterson", []string{"find", "--memory=false", "--ltl", "G(want0 -> F enter0)", liveness("peterson.c")}, cli.ExitClean,
			[]string{"No property violation found."}},
		// Condition waits may wake up spuriously; the execution that
		// waits again at once is cut, and its last state is no end of
		// the program (it was taken for one: "the program ends" with an
		// item pending).
		{"cond queue", []string{"find", "--memory=false", "--ltl", "G(pending -> F !pending)", liveness("cond-queue.c")}, cli.ExitClean,
			[]string{"No property violation found."}},
		{"priority inversion", []string{"find", "--memory=false", "--ltl", "G(r -> F cs)", liveness("priority-inversion.c")}, cli.ExitBug,
			[]string{"*** LIVENESS PROPERTY NOT VALID ***", "violates G (r -> F cs)", "[r=1 cs=0]", ")*"}},
		{"polite", []string{"find", "--memory=false", "--livelock", liveness("polite-backoff.c")}, cli.ExitBug,
			[]string{"Path = 1;1;2;3 (2;2;3;3)*"}},
		{"unknown proposition", []string{"find", "--memory=false", "--ltl", "F nosuch", liveness("peterson.c")}, cli.ExitUsage,
			nil},
		{"bad formula", []string{"find", "--memory=false", "--ltl", "G(r ->", liveness("peterson.c")}, cli.ExitUsage, nil},
		{"bad cycles", []string{"replay", "--memory=false", "--cycles", "0", "--schedule", "1 (1)*", liveness("peterson.c")}, cli.ExitUsage, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := clirun.Stdbg(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tc.code == cli.ExitUsage && strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("usage error is not one line: %q", errs)
			}
		})
	}
}

// Asking for DPOR and stateful search together runs the plain DFS and
// says so; leaving the reduction at its default says nothing.
func TestStatefulDPORNote(t *testing.T) {
	t.Parallel()
	const note = "DPOR is not sound with a visited set"
	_, errs, code := clirun.Stdbg(t, "find", "--memory=false", "--reduction", "dpor", "--visited", liveness("spin-handoff.c"))
	if code != cli.ExitClean || !strings.Contains(errs, note) {
		t.Errorf("--reduction dpor --visited: exit %d, stderr %q; want exit 0 and the note", code, errs)
	}
	_, errs, code = clirun.Stdbg(t, "find", "--memory=false", "--visited", liveness("spin-handoff.c"))
	if code != cli.ExitClean || strings.Contains(errs, note) {
		t.Errorf("--visited: exit %d, stderr %q; want exit 0 without the note", code, errs)
	}
}
