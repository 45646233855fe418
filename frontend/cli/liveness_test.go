package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func liveness(name string) string { return example(filepath.Join("liveness", name)) }

func TestFindLivelockAndReplayIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, errs, code := stdbg(t, "find", "--memory=false", "--livelock", "--no-save=false", "--corpus", dir, liveness("priority-inversion.c"))
	if code != exitBug {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitBug, out, errs)
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
	out, errs, code = stdbg(t, "replay", "--cycles", "3", entries[0])
	if code != exitBug {
		t.Fatalf("replay: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitBug, out, errs)
	}
	if !strings.Contains(out, "ran the cycle 3 times; 3 of the runs came back to the state where the cycle began") ||
		!strings.Contains(out, "step 16  [r=1 cs=0]  thread 4") {
		t.Errorf("replay output:\n%s", out)
	}
	out, errs, code = stdbg(t, "corpus", "run", dir)
	if code != exitBug || !strings.Contains(out, "the cycle still comes back to its state") {
		t.Errorf("corpus run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

// Stateful search needs every schedule: it is refused with sampling
// strategies and preemption bounds, and DPOR gives way to the plain DFS
// (with a note when the user asked for DPOR: see TestStatefulDPORNote).
func TestStatefulSearchSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key       string
		val       any
		other, ov string
		fail      bool
		reduction string // the plan's, when it does not fail
		note      bool
	}{
		{"visited", true, "reduction", "dpor", false, "none", false},
		{"livelock", true, "reduction", "dpor", false, "none", false},
		{"ltl", "G p", "reduction", "none", false, "none", false},
		{"all", true, "reduction", "dpor", false, "dpor", false},
		{"visited", true, "strategy", "random", true, "", false},
		{"livelock", true, "strategy", "pct", true, "", false},
		{"ltl", "G p", "preemptions", "2", true, "", false},
		{"visited", true, "preemptions", "-1", false, "none", false},
		{"all", true, "strategy", "random", false, "none", false},
		{"all", true, "preemptions", "1", false, "none", false},
	} {
		name := fmt.Sprintf("%s with --%s %s", tc.key, tc.other, tc.ov)
		a := &app{v: newValues()}
		file := filepath.Join(t.TempDir(), "stdbg.yaml")
		if err := os.WriteFile(file, fmt.Appendf(nil, "%s: %q\n%s: %q\n", tc.other, tc.ov, tc.key, fmt.Sprint(tc.val)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := a.v.ReadFile(file); err != nil {
			t.Fatal(err)
		}
		if err := a.v.Decode(&a.s, "setting"); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		err := a.validateStateful()
		if (err != nil) != tc.fail {
			t.Errorf("%s: error %v, want failure %v", name, err, tc.fail)
		}
		if err != nil {
			continue
		}
		p, err := a.plan(true, false)
		if err != nil {
			t.Errorf("%s: plan: %v", name, err)
			continue
		}
		if p.Search.Reduction != tc.reduction || (len(p.notes) > 0) != tc.note {
			t.Errorf("%s: reduction %s, notes %q; want %s, a note: %v", name, p.Search.Reduction, p.notes, tc.reduction, tc.note)
		}
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
		{"spin loop ends", []string{"find", "--memory=false", "--visited", liveness("spin-handoff.c")}, exitClean,
			[]string{"No property violation found.", "Visited states = "}},
		{"peterson", []string{"find", "--memory=false", "--ltl", "G(want0 -> F enter0)", liveness("peterson.c")}, exitClean,
			[]string{"No property violation found."}},
		// Condition waits may wake up spuriously; the execution that
		// waits again at once is cut, and its last state is no end of
		// the program (it was taken for one: "the program ends" with an
		// item pending).
		{"cond queue", []string{"find", "--memory=false", "--ltl", "G(pending -> F !pending)", liveness("cond-queue.c")}, exitClean,
			[]string{"No property violation found."}},
		{"priority inversion", []string{"find", "--memory=false", "--ltl", "G(r -> F cs)", liveness("priority-inversion.c")}, exitBug,
			[]string{"*** LIVENESS PROPERTY NOT VALID ***", "violates G (r -> F cs)", "[r=1 cs=0]", ")*"}},
		{"polite", []string{"find", "--memory=false", "--livelock", liveness("polite-backoff.c")}, exitBug,
			[]string{"Path = 1;1;2;3 (2;2;3;3)*"}},
		{"unknown proposition", []string{"find", "--memory=false", "--ltl", "F nosuch", liveness("peterson.c")}, exitUsage,
			nil},
		{"bad formula", []string{"find", "--memory=false", "--ltl", "G(r ->", liveness("peterson.c")}, exitUsage, nil},
		{"bad cycles", []string{"replay", "--memory=false", "--cycles", "0", "--schedule", "1 (1)*", liveness("peterson.c")}, exitUsage, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := stdbg(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tc.code == exitUsage && strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("usage error is not one line: %q", errs)
			}
		})
	}
}

func TestFindGoLivelock(t *testing.T) {
	t.Parallel()
	prog := filepath.Join("..", "..", "examples", "go", "backoff-prog")
	out, errs, code := stdbg(t, "find", "--memory=false", "--livelock", prog)
	if code != exitBug || !strings.Contains(out, "Path = 1;1;1;2;3 (2;2;3;3)*") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	out, errs, code = stdbg(t, "replay", "--memory=false", "--cycles", "2", "--schedule", "1;1;1;2;3 (2;2;3;3)*", prog)
	if code != exitBug || !strings.Contains(out, "2 of the runs came back") {
		t.Fatalf("replay: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

// Asking for DPOR and stateful search together runs the plain DFS and
// says so; leaving the reduction at its default says nothing.
func TestStatefulDPORNote(t *testing.T) {
	t.Parallel()
	const note = "DPOR is not sound with a visited set"
	_, errs, code := stdbg(t, "find", "--memory=false", "--reduction", "dpor", "--visited", liveness("spin-handoff.c"))
	if code != exitClean || !strings.Contains(errs, note) {
		t.Errorf("--reduction dpor --visited: exit %d, stderr %q; want exit 0 and the note", code, errs)
	}
	_, errs, code = stdbg(t, "find", "--memory=false", "--visited", liveness("spin-handoff.c"))
	if code != exitClean || strings.Contains(errs, note) {
		t.Errorf("--visited: exit %d, stderr %q; want exit 0 without the note", code, errs)
	}
}
