package session

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A Go target built with other settings goes to an executable of its own:
// a build never writes over one that another stdbg process sharing the
// cache (another package of a test run) may be about to run. Here the
// go command's GOFLAGS select another file of the package.
func TestBuildSettingsApart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program twice")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":   "module example.com/apart\n\ngo 1.22\n",
		"main.go":  "package main\n\nimport \"sync\"\n\nfunc main() {\n\tvar mu sync.Mutex\n\tmu.Lock()\n\tprintln(greeting)\n\tmu.Unlock()\n}\n",
		"quiet.go": "//go:build !loud\n\npackage main\n\nconst greeting = \"hello\"\n",
		"loud.go":  "//go:build loud\n\npackage main\n\nconst greeting = \"HELLO, WORLD, FROM THE LOUD BUILD\"\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := func(goflags string) (string, []byte) {
		t.Helper()
		t.Setenv("GOFLAGS", goflags)
		b, err := buildGo(dir, false, false)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(b.exe)
		if err != nil {
			t.Fatal(err)
		}
		return b.exe, data
	}
	quiet, quietData := build("")
	loud, loudData := build("-tags=loud")
	if quiet == loud {
		t.Fatalf("both builds are %s", quiet)
	}
	if bytes.Equal(quietData, loudData) || !bytes.Contains(loudData, []byte("FROM THE LOUD BUILD")) {
		t.Fatalf("the two builds are not the two programs")
	}
	if now, err := os.ReadFile(quiet); err != nil || !bytes.Equal(now, quietData) {
		t.Errorf("the build with -tags=loud changed %s (%v)", quiet, err)
	}
	if again, _ := build(""); again != quiet {
		t.Errorf("the same settings build %s, then %s", quiet, again)
	}
}
