package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A Go test whose schedules are too many to explore ends on its own under
// stdbg test and stdbg find --run: its search stops at the default budget,
// which the verdict and the summary say; --budget 0 lifts it.
func TestGoTestDefaultBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/busy\n\ngo 1.22\n",
		// Four goroutines taking one mutex four times each: some 63
		// million orders of the critical sections, none of them a bug.
		"many/many_test.go": `package many

import (
	"sync"
	"testing"
)

func TestMany(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 4 {
				mu.Lock()
				n++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if n != 16 {
		t.Fatalf("n = %d", n)
	}
}

func TestOne(t *testing.T) {}
`,
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := defaultTestBudget
	defaultTestBudget = 2 * time.Second
	t.Cleanup(func() { defaultTestBudget = old })
	t.Setenv("STDBG_TEST_CACHE", t.TempDir())
	t.Chdir(dir)
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"test", []string{"test", "--races=false", "./..."}, []string{"incomplete TestMany (", "budget of 2s spent",
			"ok         TestOne (", "stdbg test: 2 tests in 1 package: 1 ok, 1 incomplete, ", "; budget 2s per test"}},
		{"find", []string{"find", "--races=false", "--run", "^TestMany$", "./many"}, []string{"No property violation found.",
			"budget of 2s spent"}},
		{"unbounded", []string{"test", "--races=false", "--budget", "0", "-run", "TestOne", "./..."}, []string{
			"ok         TestOne (", "; no budget per test"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := stdbg(t, tt.args...)
			if code != exitClean {
				t.Fatalf("stdbg %s: exit %d, want %d\n%s\n%s", strings.Join(tt.args, " "), code, exitClean, out, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
