// Package testcache gives a package's tests a stdbg cache of their own, so
// that their builds go to a directory the test binary owns and removes,
// never to the user's cache, and has Go modules of the tests built with
// sthread from the source tree under test.
package testcache

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Main is a TestMain's body: it runs the tests of m with Setup's cache and
// returns their exit status (2 if the cache cannot be made).
func Main(m *testing.M) int {
	remove, err := Setup()
	if err != nil {
		os.Stderr.WriteString("testcache: " + err.Error() + "\n")
		return 2
	}
	defer remove()
	return m.Run()
}

// Setup points STDBG_CACHE at a new temporary directory and, unless it is
// set, STDBG_SOURCE at the source tree under test: a Go module of a test
// is then built with sthread from one path whatever the cache, which the
// go command's build cache keys on, so that one package's compiles serve
// the next (the copy a cache writes of the sources is checked by the root
// package's TestInstalled and by goinstr's tests). It returns the function
// that removes the cache.
func Setup() (remove func(), err error) {
	if os.Getenv("STDBG_SOURCE") == "" {
		root, err := Root()
		if err != nil {
			return nil, err
		}
		os.Setenv("STDBG_SOURCE", root)
	}
	cache, err := os.MkdirTemp("", "stdbg-test-cache-")
	if err != nil {
		return nil, err
	}
	os.Setenv("STDBG_CACHE", cache)
	return func() { os.RemoveAll(cache) }, nil
}

// Root returns the absolute path of stdbg's source tree that holds the
// working directory (a test runs in its package's directory).
func Root() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module github.com/stdbg/stdbg\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New(wd + " is not inside stdbg's source tree")
		}
		dir = parent
	}
}
