package goinstr

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// leftAtomic matches a use of a name of sync/atomic.
var leftAtomic = regexp.MustCompile(`\batomic\.[A-Z]\w*`)

// overlayOf reads the replacements of an overlay file.
func overlayOf(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ov overlayJSON
	if err := json.Unmarshal(b, &ov); err != nil {
		t.Fatal(err)
	}
	return ov.Replace
}

// TestInstrumentKeepsLinesAndBehaviour rewrites a program that uses every
// construct, checks that every rewritten file keeps its line count and
// that the lines holding no rewritten construct are unchanged, and that the
// instrumented program, run outside stdbg, prints what the original does.
func TestInstrumentKeepsLinesAndBehaviour(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "constructs"))
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	res, err := Instrument(Config{Dir: dir, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cached || res.Files != 2 {
		t.Fatalf("first run: cached %v, %d files, want a fresh rewrite of 2", res.Cached, res.Files)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "sync/atomic") {
			t.Errorf("warning about an instrumented atomic: %s", w)
		}
	}
	for orig, repl := range overlayOf(t, res.Overlay) {
		a, _ := os.ReadFile(orig)
		b, _ := os.ReadFile(repl)
		la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
		if len(la) != len(lb) {
			t.Fatalf("%s: %d lines rewritten into %d", orig, len(la), len(lb))
		}
		for i := range la {
			if strings.TrimSpace(la[i]) == "}" && !strings.Contains(lb[i], "}") {
				t.Errorf("%s:%d: closing brace lost: %q", orig, i+1, lb[i])
			}
		}
		switch filepath.Base(orig) {
		case "main.go":
			if !strings.Contains(string(b), "stdbglang.SendTo(") || !strings.Contains(string(b), "stdbglang.SelectOf(") ||
				!strings.Contains(string(b), "var seen stdbgsync.Map") {
				t.Errorf("rewritten file lacks channel operations:\n%s", b)
			}
		case "atomics.go":
			for _, want := range []string{"stdbgsyncatomic.AddInt64(", "stdbgsyncatomic.CompareAndSwapPointer(", "stdbgsyncatomic.Uintptr", "stdbgsyncatomic.Value", "add := stdbgsyncatomic.AddInt64",
				`import stdbgsyncatomic "github.com/stdbg/stdbg/sthread/sync/atomic"`} {
				if !strings.Contains(string(b), want) {
					t.Errorf("rewritten atomics.go lacks %q:\n%s", want, b)
				}
			}
			// Only the use that keeps the import used is left.
			for _, m := range leftAtomic.FindAllString(string(b), -1) {
				if m != "atomic.AddInt32" {
					t.Errorf("%s left as it was:\n%s", m, b)
				}
			}
		}
	}
	again, err := Instrument(Config{Dir: dir, Cache: cache})
	if err != nil || !again.Cached || again.Overlay != res.Overlay {
		t.Fatalf("second run: %+v, %v: want the cached overlay", again, err)
	}

	run := func(args ...string) string {
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
	plain, instrumented := run(), run("-overlay="+res.Overlay)
	if plain != instrumented {
		t.Fatalf("instrumented output differs:\n%s\nwant:\n%s", instrumented, plain)
	}
}

// TestInstrumentWarns checks that what is not instrumented is named, one
// line each, with its place.
func TestInstrumentWarns(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "uncovered"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Instrument(Config{Dir: dir, Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(res.Warnings, "\n")
	for _, want := range []string{
		"main.go:21: not instrumented: reflect.MakeChan (a channel made by reflection is not instrumented)",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	// The functions of sync/atomic are instrumented: no warning.
	if strings.Contains(all, "sync/atomic") {
		t.Errorf("warning about an instrumented atomic function:\n%s", all)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "\n") {
			t.Errorf("a warning spans lines: %q", w)
		}
	}
}

// Calls of a test's t that go test refuses after the test returned (Log,
// Error, Fatal, Skip and their forms) go through lang.TestCall, which
// reports them as misuse when a goroutine makes them too late; other
// methods and other types are left alone.
func TestInstrumentTestCalls(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "go", "plain", "latelog"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Instrument(Config{Dir: dir, Tests: true, Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var test string
	for orig, repl := range overlayOf(t, res.Overlay) {
		if filepath.Base(orig) == "latelog_test.go" {
			b, _ := os.ReadFile(repl)
			test = string(b)
		}
	}
	for _, want := range []string{
		`stdbglang.TestCall(t, "Logf").Logf("copied %s", n)`,
		`stdbglang.TestCall(t, "Errorf").Errorf("copied %v", c.Copied())`,
		`stdbglang.TestCall(t, "Skip").Skip(`,
	} {
		if !strings.Contains(test, want) {
			t.Errorf("rewritten test lacks %q:\n%s", want, test)
		}
	}
	if strings.Contains(test, `TestCall(t, "Helper")`) || strings.Contains(test, "TestCall(os") {
		t.Errorf("rewrote a call it should leave:\n%s", test)
	}
}

// Several finds may instrument one package at once, in one process (the
// end-to-end tests of the command line) or in several: every call gets a complete overlay.
// Calls of one process once shared a temporary directory named after the
// process and lost each other's files.
func TestInstrumentConcurrently(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks a package several times")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "constructs"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	for round := 0; round < 3; round++ {
		cache := t.TempDir()
		errs := make(chan error, n)
		overlays := make(chan string, n)
		for range n {
			go func() {
				res, err := Instrument(Config{Dir: dir, Cache: cache})
				if err == nil {
					overlays <- res.Overlay
				}
				errs <- err
			}()
		}
		for range n {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		close(overlays)
		for ov := range overlays {
			for orig, repl := range overlayOf(t, ov) {
				if _, err := os.Stat(repl); err != nil {
					t.Errorf("overlay of %s: %v", orig, err)
				}
			}
		}
	}
}
