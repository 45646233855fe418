package benchmarks

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/frontend/gotest"
)

// suiteModule writes a module of n plain Go tests, each two goroutines
// that share a counter under a mutex (a search of a few executions).
func suiteModule(b *testing.B, n int) string {
	dir := b.TempDir()
	var src strings.Builder
	src.WriteString("package suite\n\nimport (\n\t\"sync\"\n\t\"testing\"\n)\n")
	for i := range n {
		fmt.Fprintf(&src, `
func Test%d(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); mu.Lock(); n++; mu.Unlock() }()
	}
	wg.Wait()
	if n != 2 {
		t.Fatal(n)
	}
}
`, i)
	}
	for name, text := range map[string]string{"go.mod": "module example.com/suite\n\ngo 1.22\n", "suite_test.go": src.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkStdbgTest30 runs stdbg test's library on a package of 30 tests
// whose searches each take milliseconds, its test binary's build cached
// (the first run is not timed), without the results cache (-count=1): the
// cost of a suite beyond its searches. s/test is the whole run's wall time
// per test.
func BenchmarkStdbgTest30(b *testing.B) {
	const tests = 30
	dir := suiteModule(b, tests)
	cfg := gotest.Config{Dir: dir, Patterns: []string{"./..."}, Count: 1, Search: gotest.SearchWith(0, true), Stdout: io.Discard}
	if _, err := gotest.Run(context.Background(), cfg); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		sum, err := gotest.Run(context.Background(), cfg)
		if err != nil || sum.OK != tests {
			b.Fatalf("%+v, %v", sum, err)
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N*tests), "s/test")
}

// BenchmarkStdbgTest30Cached is the same with every result cached: go list,
// hashing the inputs, and no build.
func BenchmarkStdbgTest30Cached(b *testing.B) {
	const tests = 30
	dir := suiteModule(b, tests)
	cfg := gotest.Config{Dir: dir, Patterns: []string{"./..."}, Cache: b.TempDir(), Search: gotest.SearchWith(0, true), Stdout: io.Discard}
	if _, err := gotest.Run(context.Background(), cfg); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sum, err := gotest.Run(context.Background(), cfg)
		if err != nil || sum.Cached != tests {
			b.Fatalf("%+v, %v", sum, err)
		}
	}
}
