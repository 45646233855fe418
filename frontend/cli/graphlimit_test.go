package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Above the limit nothing is written and the user is told why; --graph
// and --shard do not go together.
func TestFindGraphRefused(t *testing.T) {
	defer func(n int) { graphLimit = n }(graphLimit)
	graphLimit = 10
	path := filepath.Join(t.TempDir(), "big.dot")
	_, errs, code := stdbg(t, "find", "--quiet", "--all", "--graph", path, example("dining-philosophers.c"))
	if code != exitUsage || !strings.Contains(errs, "too many to draw") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("over the limit: exit %d %q", code, errs)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a partial graph was written")
	}
	_, errs, code = stdbg(t, "find", "--shard", "0/2", "--graph", path, example("deadly-embrace.c"))
	if code != exitUsage || !strings.Contains(errs, "--shard") {
		t.Errorf("--graph --shard: exit %d %q", code, errs)
	}
}
