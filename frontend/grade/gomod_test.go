package grade

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestGoModBuilds checks that the go.mod a Go submission is built with is
// one the go command accepts as it is set up, even when that go command
// is older than the Go stdbg was built with and may not fetch another
// (GOTOOLCHAIN=local; .ci/run runs this test in a binary built with the
// newest Go): a go line above it would make every submission fail to
// build, and score 0.
func TestGoModBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	t.Setenv("GOTOOLCHAIN", "local")
	goCmdOnce = sync.Once{}
	defer func() { goCmdOnce = sync.Once{} }()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":  goMod(),
		"main.go": "package main\n\nfunc main() {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of a submission with\n%s: %v\n%s", goMod(), err, out)
	}
}
