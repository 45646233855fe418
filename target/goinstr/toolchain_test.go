package goinstr

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestNewerToolchain checks when the instrumenter runs in a build of its
// own: only for a package whose toolchain's language is newer than the
// Go stdbg was built with.
func TestNewerToolchain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	t.Setenv("GOTOOLCHAIN", "local")
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"go.mod": "module example.com/m\n\ngo 1.21\n", "m.go": "package m\n"})
	if v, err := newerToolchain(dir); err != nil || v != "" {
		t.Errorf("a module at go 1.21: %q, %v; want stdbg's own instrumenter", v, err)
	}
	future := t.TempDir()
	writeTree(t, future, map[string]string{"go.mod": "module example.com/m\n\ngo 1.99.0\n", "m.go": "package m\n"})
	// The local toolchain builds it, or rather refuses to (in go list,
	// which the instrumentation runs next).
	if v, err := newerToolchain(future); err != nil || v != "" {
		t.Errorf("a module at go 1.99 with GOTOOLCHAIN=local: %q, %v; want the local toolchain", v, err)
	}
	if _, err := Instrument(Config{Dir: future, Cache: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "GOTOOLCHAIN=local") {
		t.Errorf("Instrument of a module at go 1.99 with GOTOOLCHAIN=local: %v, want the go command's refusal", err)
	}
}

// TestToolchainError checks the one line that a package gets when its Go
// is newer than stdbg's and no instrumenter could be built with it: it
// names the command that installs stdbg with that Go.
func TestToolchainError(t *testing.T) {
	err := error(&ToolchainError{Dir: "/m", Version: "go1.99.1", Err: errors.New("go build: exit status 1\nmissing module")})
	msg := err.Error()
	for _, want := range []string{"/m is built with go1.99.1", runtime.Version(), "go build: exit status 1 ...", "GOTOOLCHAIN=go1.99.1 go install "} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("%q is not one line", msg)
	}
}

// TestServe checks the protocol between a stdbg built with an older Go
// and its instrumenter: each request is answered as the function it names
// would answer, ErrNothing included.
func TestServe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	defer func() { serving = false }()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"m.go":   "package m\n\nimport \"sync\"\n\nvar mu sync.Mutex\n\n// Lock locks.\nfunc Lock() { mu.Lock() }\n",
	})
	plain := t.TempDir()
	writeTree(t, plain, map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n", "p.go": "package p\n\n// N is 1.\nvar N = 1\n"})
	cache := t.TempDir()
	serve := func(req request) response {
		t.Helper()
		in, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := Serve(bytes.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		var resp response
		if err := json.Unmarshal(out.Bytes(), &resp); err != nil {
			t.Fatalf("%v: %s", err, out.String())
		}
		return resp
	}
	resp := serve(request{Op: "instrument", Config: Config{Dir: dir, Cache: cache}})
	if resp.Err != "" || resp.Result == nil || resp.Result.Files == 0 {
		t.Fatalf("instrument: %+v", resp)
	}
	if _, err := os.Stat(resp.Result.Overlay); err != nil {
		t.Errorf("instrument's overlay: %v", err)
	}
	if resp := serve(request{Op: "instrument", Config: Config{Dir: plain, Cache: cache}}); !resp.Nothing {
		t.Errorf("instrument of a package with nothing to instrument: %+v, want ErrNothing", resp)
	}
	resp = serve(request{Op: "state", Dir: dir})
	if resp.Err != "" || len(resp.Vars) != 1 || resp.Vars[0].Name != "mu" {
		t.Errorf("state: %+v, want mu", resp)
	}
	if resp := serve(request{Op: "wrapmain", Dir: dir, Cache: cache}); resp.Err != "" || resp.Overlay != "" {
		t.Errorf("wrapmain of a package that is no program: %+v", resp)
	}
	if resp := serve(request{Op: "what"}); !strings.Contains(resp.Err, "unknown request") {
		t.Errorf("an unknown request: %+v", resp)
	}
	if _, err := os.Stat(filepath.Join(cache, "goinstr")); err != nil {
		t.Error(err)
	}
}

// TestRemoteRelative checks that the instrumenter of another toolchain
// reads the package a request names by a relative directory, as stdbg
// test ./pkg names it, in the directory stdbg runs in: it ran in that
// package's directory and looked for the package again below it, so that
// the package state of every module needing a newer Go than stdbg's was an
// error, and each of its tests ran execution after execution in fresh
// processes.
func TestRemoteRelative(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the instrumenter")
	}
	t.Setenv("STDBG_CACHE", t.TempDir())
	vals, err := goEnv(".", "GOVERSION")
	if err != nil {
		t.Fatal(err)
	}
	version := strings.Fields(vals[0])[0] // the local toolchain: no download
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"go.mod":   "module example.com/m\n\ngo 1.22\n",
		"sub/s.go": "package sub\n\nimport \"sync\"\n\nvar mu sync.Mutex\n\n// Lock locks.\nfunc Lock() { mu.Lock() }\n",
	})
	t.Chdir(dir)
	resp, err := remote("./sub", version, request{Op: "state", Dir: "./sub"})
	if err != nil || len(resp.Vars) != 1 || resp.Vars[0].Name != "mu" {
		t.Fatalf("state of ./sub through the instrumenter built with %s: %+v, %v; want mu", version, resp, err)
	}
}

// TestGoEnvAskedOnce checks that the go command's settings of a directory
// are asked of it once, however many callers ask at the same time, for
// what, and however they name the directory; and again once a go.mod that
// decides them appears: each go command costs a tenth of a second of a Go
// target's start.
func TestGoEnvAskedOnce(t *testing.T) {
	bin := t.TempDir()
	log := filepath.Join(bin, "calls")
	fake := "#!/bin/sh\necho \"$@\" >> " + log + "\nshift\nfor n in \"$@\"; do case $n in GOVERSION) echo go1.21.0;; *) echo \"v-$n\";; esac; done\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	t.Chdir(dir)
	calls := func() int {
		t.Helper()
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(data), "\n")
	}
	ask := func() {
		t.Helper()
		var wg sync.WaitGroup
		for _, d := range []string{dir, ".", dir, "./", dir + "/"} {
			wg.Go(func() {
				if v, err := newerToolchain(d); err != nil || v != "" {
					t.Errorf("newerToolchain(%s) = %q, %v; want the local toolchain", d, v, err)
				}
			})
			wg.Go(func() {
				if vals, err := GoEnv(d, "CGO_ENABLED", "CC"); err != nil || len(vals) != 2 || vals[0] != "v-CGO_ENABLED" || vals[1] != "v-CC" {
					t.Errorf("GoEnv(%s, CGO_ENABLED, CC) = %q, %v", d, vals, err)
				}
			})
			wg.Go(func() {
				if vals, err := GoEnv(d, "GOMOD", "GOWORK", "GOFLAGS"); err != nil || len(vals) != 3 || vals[0] != "v-GOMOD" {
					t.Errorf("GoEnv(%s, GOMOD, GOWORK, GOFLAGS) = %q, %v", d, vals, err)
				}
			})
		}
		wg.Wait()
	}
	ask()
	if n := calls(); n != 1 {
		t.Errorf("the go command was run %d times, want once", n)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ask()
	if n := calls(); n != 2 {
		t.Errorf("after go.mod appeared, the go command was run %d times in all, want twice", n)
	}
}
