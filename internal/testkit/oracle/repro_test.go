package oracle

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
)

// The standalone Go test written for a finding is the program the
// interpreter runs: run with go test, it fails with the bug running every
// schedule finds, or passes when there is none.
func TestGoReproducersRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test package")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod := "module repro\n\ngo 1.26.8\n\nrequire github.com/stdbg/stdbg v0.0.0\n\nreplace github.com/stdbg/stdbg => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"go.mod": mod, "go.sum": string(sum)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	progs := map[string]string{
		// A read that may come before the write: fails in some schedules.
		"TestBuggy": `lang go
obj m0 mutex
obj x0 var
thread 0
  go 1
  lock m0
  read x0 r0
  unlock m0
  assert r0 == 1 #5
thread 1
  lock m0
  write x0 1
  unlock m0
`,
		// A correct hand-over under a mutex and a WaitGroup.
		"TestClean": `lang go
obj m0 mutex
obj x0 var
obj wg0 waitgroup
thread 0
  wgadd wg0 1
  go 1
  wgwait wg0
  lock m0
  read x0 r0
  unlock m0
  assert r0 == 1 #6
thread 1
  lock m0
  write x0 1
  unlock m0
  wgdone wg0
`,
	}
	for fn, text := range progs {
		p := mustParse(t, text)
		src, err := GoTest(p, "repro", fn, "test "+fn)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, strings.ToLower(fn)+"_test.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Compare(context.Background(), p, DefaultLimits, func(string) bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		if buggy := len(res.Reference.Bugs) > 0; buggy != (fn == "TestBuggy") {
			t.Fatalf("%s: the interpreter finds %q", fn, res.Reference.Keys())
		}
	}
	cmd := exec.Command(goTool, "test", "-count=1", "-v", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, _ := cmd.CombinedOutput()
	text := string(out)
	for _, want := range []string{"--- FAIL: TestBuggy", "assertion failed: A5", "--- PASS: TestClean"} {
		if !strings.Contains(text, want) {
			t.Errorf("go test of the reproducers: no %q in\n%s", want, text)
		}
	}
}

// The standalone C source of a C program builds and runs under stdbg as
// the batches do.
func TestCSourceRuns(t *testing.T) {
	requireCompiler(t)
	p := mustParse(t, `lang c
obj m0 mutex 2
obj x0 var
obj s0 sem 0
thread 0
  go 1
  lock m0
  incr x0
  unlock m0
  semwait s0
  read x0 r0
  assert r0 == 2 #4
  join 1
thread 1
  incr x0
  sempost s0
`)
	res, err := Compare(context.Background(), p, DefaultLimits, func(n string) bool { return n == "dpor" })
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, k := range res.Reference.Keys() {
		kinds = append(kinds, strings.SplitN(k, "@", 2)[0])
	}
	// The update of thread 1 is unprotected: it may be lost.
	if strings.Join(kinds, " ") != "assertion" {
		t.Errorf("bugs %q, want an assertion failure", res.Reference.Keys())
	}
	for _, d := range res.Disagree {
		if knownFinding(p, 0, d) == "" {
			t.Errorf("%s", d)
		}
	}
}

// A campaign shrinks a disagreement to a program that still shows it, and
// writes its reproducers: the program text reads back.
func TestCampaignShrinksAndWritesAFinding(t *testing.T) {
	saved := strategies
	defer func() { strategies = saved }()
	strategies = []strategyDef{{name: "first", traces: "cover", run: func(ctx context.Context, t target, l Limits) (*Verdict, error) {
		return exploreCounted(ctx, t, &firstOnly{Strategy: search.NewDFS()}, l, false, 1000)
	}}}
	var found []*Finding
	c := &Campaign{Lang: Go, Gen: quickGenGo, Limits: quickLimit, ShrinkTries: 300, MaxShrinks: 1,
		Select:    func(uint64) func(string) bool { return func(n string) bool { return n == "first" } },
		OnFinding: func(f *Finding) { found = append(found, f) }}
	for seed := uint64(1); len(found) == 0 && seed < 100; seed++ {
		if _, _, err := c.Program(context.Background(), seed); err != nil {
			t.Fatal(err)
		}
	}
	if len(found) == 0 {
		t.Fatal("the unsound strategy never disagreed")
	}
	f := found[0]
	if f.Program.Size() > f.Original.Size() {
		t.Errorf("shrunk from %d to %d operations", f.Original.Size(), f.Program.Size())
	}
	still := false
	for _, d := range f.Result.Disagree {
		still = still || d.Strategy == f.Disagreement.Strategy && d.What == f.Disagreement.What
	}
	if !still {
		t.Errorf("the shrunk program no longer shows %s:\n%s", f.Disagreement, f.Program)
	}
	dir := t.TempDir()
	files, err := f.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || !strings.HasSuffix(files[1], "_test.go") {
		t.Fatalf("wrote %q", files)
	}
	text, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(string(text))
	if err != nil || p.String() != f.Program.String() {
		t.Errorf("the .prog file reads back as %v, %v", p, err)
	}
}
