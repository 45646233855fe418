package ctarget_test

import (
	"os"
	"testing"
)

// TestMain keeps every build of the tests in a temporary cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stdbg-ctarget-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("STDBG_CACHE", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
