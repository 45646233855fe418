package testcache

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSetup(t *testing.T) {
	t.Setenv("STDBG_CACHE", "/somewhere/users")
	t.Setenv("STDBG_SOURCE", "")
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
