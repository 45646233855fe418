package grade

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain gives the package's tests a stdbg cache of their own, removed
// at the end, so that their builds never go to the user's cache; Go
// modules of the tests are built with sthread from the source tree under
// test (STDBG_SOURCE), at one path whatever the cache, which the go
// command's build cache keys on.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	cache, err := os.MkdirTemp("", "stdbg-grade-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(cache)
	os.Setenv("STDBG_CACHE", cache)
	if os.Getenv("STDBG_SOURCE") == "" {
		src, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		os.Setenv("STDBG_SOURCE", src)
	}
	return m.Run()
}
