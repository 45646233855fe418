package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

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
