package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/stdbg/stdbg/ctarget"
)

// isGoTarget reports whether arg names a Go package: a directory holding
// .go files (or a path ending in /...).
func isGoTarget(arg string) bool {
	if strings.HasSuffix(arg, ".go") {
		return true
	}
	st, err := os.Stat(arg)
	if err != nil || !st.IsDir() {
		return false
	}
	matches, _ := filepath.Glob(filepath.Join(arg, "*.go"))
	return len(matches) > 0
}

// buildGo builds a Go package into stdbg's cache: a program with go build,
// or, when test is set, its test binary with go test -c. The program must
// use package sthread (sthread.Run around main, sthread.Check in tests).
func buildGo(pkg string, test bool) (string, error) {
	return buildGoMode(pkg, test, false)
}

// buildGoDebug is buildGo for a debugger: optimisations and inlining are
// off in every package (-gcflags=all=-N -l), so that Delve shows every
// variable and every call.
func buildGoDebug(pkg string, test bool) (string, error) {
	return buildGoMode(pkg, test, true)
}

func buildGoMode(pkg string, test, debug bool) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("building %s: the go command is not on PATH", pkg)
	}
	abs, err := filepath.Abs(pkg)
	if err != nil {
		return "", fmt.Errorf("building %s: %w", pkg, err)
	}
	dir := abs
	target := "."
	if strings.HasSuffix(abs, ".go") {
		dir, target = filepath.Dir(abs), filepath.Base(abs)
	}
	base, err := ctarget.CacheDir()
	if err != nil {
		return "", err
	}
	key := fmt.Sprintf("%s\x00%v", abs, test)
	if debug {
		key += "\x00debug"
	}
	sum := sha256.Sum256([]byte(key))
	outDir := filepath.Join(base, "targets", "go-"+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return "", fmt.Errorf("building %s: %w", pkg, err)
	}
	name := filepath.Base(strings.TrimSuffix(abs, ".go"))
	out := filepath.Join(outDir, name)
	// sthread's calls are not inlined into the user's code: a call site
	// then keeps the user's file and line in the binary's line table.
	noInline := "-gcflags=github.com/stdbg/stdbg/sthread=-l"
	if debug {
		noInline = "-gcflags=all=-N -l"
	}
	args := []string{"build", noInline, "-o", out, target}
	if test {
		out += ".test"
		args = []string{"test", "-c", noInline, "-o", out, target}
	}
	cmd := exec.Command(goBin, args...)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building %s: go %s: %v\n%s", pkg, strings.Join(args, " "), err, strings.TrimSpace(buf.String()))
	}
	return out, nil
}

// goTestArgs are the test binary's flags that run the tests matching run.
func goTestArgs(run string) []string {
	return []string{"-test.run=" + run, "-test.count=1"}
}
