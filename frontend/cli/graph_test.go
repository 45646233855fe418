package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// dotTool returns Graphviz's dot.
func dotTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("dot")
	if err != nil {
		t.Fatal("no Graphviz dot on PATH: the --graph tests render with it; install it (.ci/run does: apt-get install graphviz)")
	}
	return p
}

// find --graph draws what the search explored: the tree of its
// executions (one node per state it counts), or with --visited the state
// graph where schedules meet; Graphviz renders both.
func TestFindGraph(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	edges := regexp.MustCompile(`(?m)^  s\d+ -> s\d+ \[label="T\d [^"]+"\];$`)
	states := regexp.MustCompile(`States = (\d+)`)
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"tree", []string{"--all"}},
		{"states merged", []string{"--all", "--visited"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".dot")
			out, errs, code := stdbg(t, append(append([]string{"find", "--graph", path}, tc.flags...), example("deadly-embrace.c"))...)
			if code != exitBug {
				t.Fatalf("find --graph: exit %d\n%s\n%s", code, out, errs)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			dot := string(b)
			n := len(edges.FindAllString(dot, -1))
			m := states.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no state count in\n%s", out)
			}
			treeStates := atoi(t, m[1])
			if !strings.Contains(dot, `[label="deadlock"`) || !strings.Contains(dot, `label="T1 pthread_mutex_lock(first)"`) {
				t.Errorf("the graph lacks the deadlock or the named locks:\n%s", dot)
			}
			// The default search draws its exhaustive member alone, on
			// a machine of any speed: the portfolio's other members,
			// which join it after its lead on a slow machine, would add
			// states the tree already has.
			if len(tc.flags) == 1 && !strings.Contains(out, "Search: exhaustive (DFS with DPOR): ") {
				t.Errorf("the drawing is not of the exhaustive search alone:\n%s", out)
			}
			if len(tc.flags) == 1 && n != treeStates-1 {
				t.Errorf("the tree has %d edges; the search counted %d states", n, treeStates)
			}
			nodes := map[string]bool{}
			for _, m := range regexp.MustCompile(`s\d+`).FindAllString(strings.Join(edges.FindAllString(dot, -1), " "), -1) {
				nodes[m] = true
			}
			// Schedules that reach one state meet in one node: fewer
			// nodes than a tree of as many edges has.
			if len(tc.flags) == 2 && (!strings.Contains(dot, "states merged by identity") || len(nodes) >= n+1) {
				t.Errorf("merged graph: %d nodes for %d edges", len(nodes), n)
			}
			svg, err := exec.Command(dotTool(t), "-Tsvg", path).Output()
			if err != nil || !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "deadlock") {
				t.Fatalf("dot -Tsvg: %v", err)
			}
		})
	}
}

// Above the limit nothing is written and the user is told why; --graph
// and --shard do not go together.
func TestFindGraphRefused(t *testing.T) {
	defer func(n int) { graphLimit = n }(graphLimit)
	graphLimit = 10
	path := filepath.Join(t.TempDir(), "big.dot")
	_, errs, code := stdbg(t, "find", "--quiet", "--all", "--graph", path, example("dining-philosophers.c"))
	if code != exitUsage || !strings.Contains(errs, "too many to draw") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("over the limit: exit %d %q", code, errs)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a partial graph was written")
	}
	_, errs, code = stdbg(t, "find", "--shard", "0/2", "--graph", path, example("deadly-embrace.c"))
	if code != exitUsage || !strings.Contains(errs, "--shard") {
		t.Errorf("--graph --shard: exit %d %q", code, errs)
	}
}
