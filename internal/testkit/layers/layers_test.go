package layers_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/stdbg/stdbg/"

// rank is the layer of each folder, lowest first; folders of one rank do
// not import each other.
var rank = map[string]int{
	"internal":  0,
	"model":     1,
	"engine":    2,
	"debug":     3,
	"output":    3,
	"target":    3,
	"frontend":  4,
	"sthread":   5,
	"cmd/stdbg": 6,
}

// layer returns the folder of a package path relative to the module and
// its rank (-1 for a folder the layering does not cover).
func layer(p string) (string, int) {
	if strings.HasPrefix(p, "internal/testkit/") {
		return "internal/testkit", 100
	}
	for _, f := range []string{"cmd/stdbg", "internal"} {
		if p == f || strings.HasPrefix(p, f+"/") {
			return f, rank[f]
		}
	}
	top, _, _ := strings.Cut(p, "/")
	if r, ok := rank[top]; ok {
		return top, r
	}
	return top, -1
}

// TestLayers checks every import (tests left out) of every package of the
// module outside examples and benchmarks.
func TestLayers(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = "../../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		from, ok := strings.CutPrefix(fields[0], module)
		if !ok || strings.HasPrefix(from, "examples/") || strings.HasPrefix(from, "benchmarks") {
			continue
		}
		ff, fr := layer(from)
		if fr < 0 {
			t.Errorf("package %s is in folder %s/, which the layering does not know", from, ff)
			continue
		}
		for _, imp := range fields[1:] {
			to, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			seen++
			tf, tr := layer(to)
			switch {
			case tf == ff:
			case tf == "internal/testkit":
				t.Errorf("%s imports %s: only tests may import internal/testkit", from, to)
			case tr < 0:
				t.Errorf("%s imports %s, in folder %s/, which the layering does not know", from, to, tf)
			case tr >= fr:
				t.Errorf("%s (%s/) imports %s (%s/): an arrow up or across the layers", from, ff, to, tf)
			case strings.HasPrefix(from, "sthread/") && (tr >= rank["target"] || to == "engine/hunt"):
				// The runtime and the mirrors run inside every Go
				// target: they use the engine, never the pipeline
				// (package sthread, which runs whole searches, may).
				t.Errorf("%s imports %s: the Go runtime imports nothing above the engine, nor the pipeline", from, to)
			}
		}
	}
	if seen < 100 {
		t.Fatalf("only %d imports inside the module: the listing is broken", seen)
	}
}
