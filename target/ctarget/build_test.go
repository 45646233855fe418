package ctarget

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestChangedCompilerRebuilds: a program is compiled again when its
// compiler's file changes at the same path (an upgrade, a switched
// alternative), and not while nothing changes. The compiler here is a
// script that counts its runs and runs g++ (C++, so that the library,
// built with the C compiler, is not rebuilt with it).
func TestChangedCompilerRebuilds(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "prog.cpp")
	if err := os.WriteFile(src, []byte("int main() { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	count := filepath.Join(dir, "runs")
	wrapper := filepath.Join(dir, "c++")
	install := func(version string) {
		script := "#!/bin/sh\n# version " + version + "\necho >> '" + count + "'\nexec '" + gxx + "' \"$@\"\n"
		if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runs := func() int {
		b, _ := os.ReadFile(count)
		return bytes.Count(b, []byte("\n"))
	}
	install("1")
	t.Setenv("CXX", wrapper)
	for i, step := range []struct {
		version string // "" leaves the compiler as it is
		runs    int
	}{
		{"", 1},     // first build
		{"", 1},     // up to date
		{"1.1", 2},  // the compiler changed: built again
		{"", 2},     // up to date with the new compiler
		{"1.10", 3}, // again
	} {
		if step.version != "" {
			install(step.version)
		}
		if _, err := Build(src); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := runs(); got != step.runs {
			t.Errorf("step %d (compiler %q): the compiler ran %d times in all, want %d", i, step.version, got, step.runs)
		}
	}
}
