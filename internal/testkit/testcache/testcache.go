// Package testcache gives a package's tests a stdbg cache, so that their
// builds go to a directory the test run owns and removes, never to the
// user's cache, and has Go modules of the tests built with sthread from
// the source tree under test.
//
// By default each test binary makes a cache of its own. A run of the whole
// suite hands every package one cache instead (SharedEnv, which .ci/run
// sets to a directory it makes and removes): the first package that needs
// a build (the C library, an instrumented package, an example linked with
// or without the race detector or for Delve) makes it, and the others use
// it. Every entry of stdbg's cache is named by what it is built from and
// written under a name of its own before it is renamed into place, so
// that packages running side by side never see half of one, nor one built
// with other settings.
package testcache

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SharedEnv names the environment variable that holds the stdbg cache the
// packages of one test run share: an absolute path to an existing
// directory, which the run makes before go test starts and removes after
// it ends (the tests never remove it).
const SharedEnv = "STDBG_SUITE_CACHE"

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

// Setup points STDBG_CACHE at the run's shared cache ($STDBG_SUITE_CACHE)
// or else at a new temporary directory, and, unless it is set,
// STDBG_SOURCE at the source tree under test: a Go module of a test is
// then built with sthread from one path whatever the cache, which the go
// command's build cache keys on, so that one package's compiles serve the
// next (the copy a cache writes of the sources is checked by the root
// package's TestInstalled and by goinstr's tests). It returns the function
// that removes the cache it made (nothing, for the shared one).
func Setup() (remove func(), err error) {
	if os.Getenv("STDBG_SOURCE") == "" {
		root, err := Root()
		if err != nil {
			return nil, err
		}
		os.Setenv("STDBG_SOURCE", root)
	}
	if shared := os.Getenv(SharedEnv); shared != "" {
		if err := usable(shared); err != nil {
			return nil, err
		}
		os.Setenv("STDBG_CACHE", shared)
		return func() {}, nil
	}
	cache, err := os.MkdirTemp("", "stdbg-test-cache-")
	if err != nil {
		return nil, err
	}
	os.Setenv("STDBG_CACHE", cache)
	return func() { os.RemoveAll(cache) }, nil
}

// usable says why dir cannot be the shared cache: it must be an absolute
// path (the tests run in their packages' directories) to a directory that
// exists (the run made it, and removes it).
func usable(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("%s=%s is not an absolute path", SharedEnv, dir)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s=%s: %w (the run that sets it makes the directory)", SharedEnv, dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s=%s is not a directory", SharedEnv, dir)
	}
	return nil
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
