package gofind

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// TestFindInTarget: a Go target searched inside its own process finds what
// the search driven from stdbg finds (the same bugs at the same minimal
// schedules, the same verdict, and for one process the same executions),
// and a schedule that ends the whole process (os.Exit from a goroutine)
// loses nothing: it is reported, and the search goes on past it.
func TestFindInTarget(t *testing.T) {
	t.Parallel()
	goEx := func(name string) string { return filepath.Join(clirun.Root(), "examples", "go", name) }
	tests := []struct {
		name       string
		args       []string
		kinds      []string
		sameCounts bool   // one process each way: the same executions
		stderr     string // said on stderr by the search in the target
		// long: only with -e2e.long, what the case asserts being
		// asserted by another (embrace-prog's deadlock by "every
		// schedule", a plain Go search by "plain Go, a data race")
		long bool
	}{
		{"deadlock", []string{goEx("embrace-prog")}, []string{"deadlock"}, false, "", true},
		{"leak", []string{goEx("leak-prog")}, []string{"leak"}, false, "", false},
		{"a test", []string{"-run", "TestEmbrace", goEx("embrace-test")}, []string{"deadlock"}, false, "", false},
		{"os.Exit mid-search", []string{"--all", goEx("exit-prog")}, []string{"crash", "deadlock"}, false,
			"the program ended its process during schedule 1;2;2 (exit status 3: worker: the service is not started; a fresh run of it: crash)", false},
		{"clean, DPOR", []string{"--all", "-j", "1", "-run", "TestCheckProdCons1", goEx("dpor")}, nil, true, "", false},
		{"every schedule", []string{"--all", "-j", "1", "--reduction", "none", goEx("embrace-prog")}, []string{"deadlock"}, true, "", false},
		{"a shard", []string{"--all", "-j", "1", "--shard", "1/2", "-run", "TestCheckReadersWriters2", goEx("dpor")}, nil, true, "", false},
		{"two processes", []string{"--all", "-j", "2", "-run", "TestCheckReadersWriters2", goEx("dpor")}, nil, false, "", false},
		{"random", []string{"--strategy", "random", "--seed", "7", "--executions", "200", goEx("embrace-prog")}, []string{"deadlock"}, false, "", false},
		// Plain Go is built with the race detector, which must not take
		// the search's own work for the program's races.
		{"plain Go, clean", []string{"--all", goEx("plain/atomiccountok")}, nil, false, "", true},
		{"plain Go, a data race", []string{goEx("plain/counter")}, []string{"data-race"}, false, "", false},
	}
	type result struct {
		Bugs []struct {
			Kind string `json:"kind"`
			Path string `json:"path"`
		} `json:"bugs"`
		Complete bool `json:"complete"`
		Stats    struct {
			Executions int64 `json:"executions"`
		} `json:"stats"`
		SearchedIn string `json:"searched_in"`
	}
	find := func(t *testing.T, inTarget string, args []string) (result, string) {
		t.Helper()
		out, errs, code := clirun.Stdbg(t, append([]string{"find", "--json", "--in-target=" + inTarget}, args...)...)
		if code != cli.ExitClean && code != cli.ExitBug {
			t.Fatalf("find --in-target=%s: exit %d\n%s\n%s", inTarget, code, out, errs)
		}
		var r result
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("find --in-target=%s: %v\n%s", inTarget, err, out)
		}
		return r, errs
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.long && !clirun.Long() {
				t.Skip("asserted by another case: run with -e2e.long")
			}
			t.Parallel()
			in, errs := find(t, "true", tt.args)
			out, _ := find(t, "false", tt.args)
			if in.SearchedIn != "target" || out.SearchedIn != "stdbg" {
				t.Errorf("searched in %q and %q, want target and stdbg\n%s", in.SearchedIn, out.SearchedIn, errs)
			}
			var kinds []string
			paths := map[string]string{}
			for _, b := range in.Bugs {
				kinds = append(kinds, b.Kind)
				paths[b.Kind] = b.Path
			}
			slices.Sort(kinds)
			if !slices.Equal(kinds, tt.kinds) {
				t.Errorf("in the target: bugs %v, want %v", kinds, tt.kinds)
			}
			for _, b := range out.Bugs {
				if paths[b.Kind] != b.Path {
					t.Errorf("the %s: Path = %s in the target, %s from stdbg", b.Kind, paths[b.Kind], b.Path)
				}
			}
			if len(out.Bugs) != len(in.Bugs) || in.Complete != out.Complete {
				t.Errorf("in the target: %d bugs, complete %v; from stdbg: %d bugs, complete %v", len(in.Bugs), in.Complete, len(out.Bugs), out.Complete)
			}
			if tt.sameCounts && in.Stats.Executions != out.Stats.Executions {
				t.Errorf("executions: %d in the target, %d from stdbg", in.Stats.Executions, out.Stats.Executions)
			}
			if !strings.Contains(errs, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errs)
			}
		})
	}
}
