package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stdbg/stdbg/internal/cachedir"
)

// TestCacheTrimmed checks that a command removes the cache's entries left
// unused for longer than cachedir.Unused once its last look is a day old
// (a program built once in a temporary directory), keeps the rest, and that
// stdbg version does not look.
func TestCacheTrimmed(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("STDBG_CACHE", cache)
	long := time.Now().Add(-cachedir.Unused - time.Hour)
	old := filepath.Join(cache, "targets", "go-0123456789abcdef")
	kept := filepath.Join(cache, "targets", "go-fedcba9876543210")
	stamp := filepath.Join(cache, "trimmed")
	for _, d := range []string{old, kept} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(stamp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{old, stamp} {
		os.Chtimes(p, long, long)
	}
	var out, errOut bytes.Buffer
	for _, args := range [][]string{{"version"}, {"corpus", "list", t.TempDir()}} {
		if code := Run(args, nil, &out, &errOut); code != 0 {
			t.Fatalf("stdbg %v: exit %d\n%s", args, code, errOut.String())
		}
		_, err := os.Stat(old)
		if gone := err != nil; gone != (args[0] != "version") {
			t.Errorf("after stdbg %v: the unused entry gone=%v", args, gone)
		}
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("an entry in use was removed: %v", err)
	}
}
