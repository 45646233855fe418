package testcache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetup(t *testing.T) {
	t.Setenv("STDBG_CACHE", "/somewhere/users")
	t.Setenv("STDBG_SOURCE", "")
	t.Setenv(SharedEnv, "")
	remove, err := Setup()
	if err != nil {
		t.Fatal(err)
	}
	cache := os.Getenv("STDBG_CACHE")
	if fi, err := os.Stat(cache); err != nil || !fi.IsDir() || cache == "/somewhere/users" {
		t.Fatalf("STDBG_CACHE=%q: not a new directory (%v)", cache, err)
	}
	src := os.Getenv("STDBG_SOURCE")
	if _, err := os.Stat(filepath.Join(src, "internal", "testkit", "testcache", "testcache.go")); err != nil {
		t.Errorf("STDBG_SOURCE=%q is not the source tree: %v", src, err)
	}
	remove()
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Errorf("the cache %s is still there: %v", cache, err)
	}
}

// The run's shared cache is every package's, and no package removes it;
// a value that cannot be one is refused, in one line naming the variable.
func TestSetupShared(t *testing.T) {
	shared := t.TempDir()
	file := filepath.Join(shared, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, value, err string
	}{
		{"shared", shared, ""},
		{"relative", "cache", "not an absolute path"},
		{"missing", filepath.Join(shared, "missing"), "no such file or directory"},
		{"a file", file, "not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("STDBG_CACHE", "/somewhere/users")
			t.Setenv(SharedEnv, tc.value)
			remove, err := Setup()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), SharedEnv+"=") || strings.Contains(err.Error(), "\n") {
					t.Fatalf("Setup() = %v, want one line naming %s that says %q", err, SharedEnv, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := os.Getenv("STDBG_CACHE"); got != shared {
				t.Errorf("STDBG_CACHE=%q, want the shared cache %q", got, shared)
			}
			remove()
			if _, err := os.Stat(file); err != nil {
				t.Errorf("the shared cache was removed: %v", err)
			}
		})
	}
}
