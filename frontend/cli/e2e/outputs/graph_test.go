package outputs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
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
			out, errs, code := clirun.Stdbg(t, append(append([]string{"find", "--graph", path}, tc.flags...), clirun.Example("deadly-embrace.c"))...)
			if code != cli.ExitBug {
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
			treeStates, _ := strconv.Atoi(m[1])
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
