package goinstr

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sharedCacheEnv, set in the copy of the test binary that
// TestCacheSharedByExecutables starts, holds the cache it instruments with.
const sharedCacheEnv = "GOINSTR_TEST_SHARED_CACHE"

// The rewritten files are named by the code that rewrites, not by the
// executable that runs it: another executable built from the same sources
// (another package's test binary, when a test run shares one cache among
// them) finds them, and does not rewrite the package again.
func TestCacheSharedByExecutables(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "constructs"))
	if err != nil {
		t.Fatal(err)
	}
	if cache := os.Getenv(sharedCacheEnv); cache != "" {
		// The copy: say what it found.
		res, err := Instrument(Config{Dir: dir, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("\ncached=" + map[bool]string{true: "yes", false: "no"}[res.Cached] + " overlay=" + res.Overlay + "\n")
		return
	}
	if testing.Short() {
		t.Skip("instruments a package in two processes")
	}
	cache := t.TempDir()
	res, err := Instrument(Config{Dir: dir, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cached {
		t.Fatalf("a fresh cache gave a cached result")
	}
	// The same test binary at another path, with another time: another
	// executable of the same sources.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "copy.test")
	copyFile(t, self, copyPath)
	cmd := exec.Command(copyPath, "-test.run=^TestCacheSharedByExecutables$", "-test.count=1")
	cmd.Env = append(os.Environ(), sharedCacheEnv+"="+cache)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", copyPath, err, out)
	}
	if want := "cached=yes overlay=" + res.Overlay + "\n"; !strings.Contains(string(out), want) {
		t.Errorf("the other executable did not use the rewritten files (want %q):\n%s", want, out)
	}
}

// copyFile copies the executable from into to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
