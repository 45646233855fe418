package goinstr

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInstrumentRealCode instruments programs with the constructs real
// code holds that the rewriting once broke or left alone, builds each with
// and without its overlay, and checks that everything was instrumented,
// that the rewritten file holds the calls expected, and that both builds
// print the same.
func TestInstrumentRealCode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	for _, tt := range []struct {
		dir  string
		want []string // in the rewritten main.go
		// warn are the warnings expected, each about what the search
		// does not explore.
		warn []string
	}{
		// A *T sent on a chan I once inferred two types for ChanSend's
		// one type parameter and did not compile.
		{"ifacesend", []string{"stdbglang.SendTo(shapes).Send(&square{2})", "stdbglang.SendTo(shapes).Case(&square{4})",
			"stdbglang.SendTo(ev).Send(&b)"}, nil},
		// A case over several lines once left its select uninstrumented,
		// which a search ended in a transition timeout.
		{"multilineselect", []string{"v, ok := stdbgV", "stdbglang.SendTo(out).Case(msg{ id: 1, text: \"one\", })",
			`func() string { s := "t"; s += "wo"; return s; }()`, "stdbglang.RecvCaseOf(func() chan struct{} { return done; }())"}, nil},
		// Go's order of a range over a map differs from run to run: a
		// replay of a schedule did not repeat the execution it replays.
		{"maprange", []string{
			"for stdbgNext1, _, v, stdbgOK1 := stdbglang.MapRangeLoop(m); stdbgOK1; _, v, stdbgOK1 = stdbgNext1() {",
			"for stdbgNext3, k, v, stdbgOK3 := stdbglang.MapRangeLoop(m); stdbgOK3; k, v, stdbgOK3 = stdbgNext3() {",
			"for stdbgNext4, stdbgV4_0, stdbgV4_1, stdbgOK4 := stdbglang.MapRangeLoop(m); stdbgOK4; stdbgV4_0, stdbgV4_1, stdbgOK4 = stdbgNext4() { k = stdbgV4_0; v = stdbgV4_1;",
			"for stdbgNext5, stdbgV5_0, _, stdbgOK5 := stdbglang.MapRangeLoop(m); stdbgOK5; stdbgV5_0, _, stdbgOK5 = stdbgNext5() { last.k = stdbgV5_0;",
			"for range pts {"},
			[]string{"main.go:80: not instrumented: the order of a range over a map keyed by *point"}},
	} {
		t.Run(tt.dir, func(t *testing.T) {
			t.Parallel()
			dir, err := filepath.Abs(filepath.Join("testdata", tt.dir))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Instrument(Config{Dir: dir, Cache: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) != len(tt.warn) {
				t.Errorf("warnings:\n%s\nwant %d", strings.Join(res.Warnings, "\n"), len(tt.warn))
			}
			for i, w := range tt.warn {
				if i >= len(res.Warnings) || !strings.HasPrefix(res.Warnings[i], w) || !slices.Contains(res.Unmodelled, res.Warnings[i]) {
					t.Errorf("warnings:\n%s\nwant %q among them and not modelled", strings.Join(res.Warnings, "\n"), w)
				}
			}
			var text string
			for orig, repl := range overlayOf(t, res.Overlay) {
				a, _ := os.ReadFile(orig)
				b, _ := os.ReadFile(repl)
				if strings.Count(string(a), "\n") != strings.Count(string(b), "\n") {
					t.Errorf("%s: lines moved", orig)
				}
				if filepath.Base(orig) == "main.go" {
					text = string(b)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("rewritten main.go lacks %q:\n%s", w, text)
				}
			}
			plain, instrumented := buildRun(t, dir), buildRun(t, dir, "-overlay="+res.Overlay)
			if plain != instrumented {
				t.Fatalf("instrumented output differs:\n%s\nwant:\n%s", instrumented, plain)
			}
		})
	}
}

// buildRun builds the program in dir with the go build flags args, runs it
// and returns its output.
func buildRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "prog")
	cmd := exec.Command("go", append(append([]string{"build", "-o", exe}, args...), ".")...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %v: %v\n%s", args, err, out)
	}
	var out bytes.Buffer
	c := exec.Command(exe)
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		t.Fatalf("running %v: %v\n%s", args, err, out.String())
	}
	return out.String()
}
