package oracle

import (
	"fmt"
	"os"
	"testing"
)

// TestMain gives the package's tests a stdbg cache of their own (the C
// library, the programs' builds), removed at the end, so that nothing goes
// to the user's cache.
func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if os.Getenv("STDBG_CACHE") == "" {
		cache, err := os.MkdirTemp("", "stdbg-oracle-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		defer os.RemoveAll(cache)
		os.Setenv("STDBG_CACHE", cache)
	}
	return m.Run()
}
