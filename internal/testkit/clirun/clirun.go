// Package clirun runs stdbg's command line (package cli) in-process for
// the end-to-end tests, which are split into packages by subject: what
// every such package sets up in its TestMain, and running one command line
// with its output and exit status. Only tests import it.
package clirun

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/frontend/session"
	"github.com/stdbg/stdbg/internal/testkit/long"
	"github.com/stdbg/stdbg/internal/testkit/testcache"
)

// ownDir is the directory the test binary owns, made by Main.
var ownDir string

// Long reports whether the long checks were asked for (-e2e.long, package
// long): the checks of the examples themselves against real Go (go test
// -race run tens of times, so that a planted bug shows and a correct test
// stays correct), and the examples that repeat a behaviour another example
// of the package asserts already. go test ./... leaves them out; .ci/run
// runs them as a step of its own, so CI still covers them.
func Long() bool { return long.Enabled() }

// Main is the TestMain of a package of end-to-end tests: it gives the
// package a stdbg cache (testcache.Setup: the run's shared one, or one of
// its own removed at the end) and a directory of its own (Dir), keeps
// corpora out of the repository (STDBG_NO_SAVE; the tests of the corpus pass
// --no-save=false with their own directories), shares the builds of the
// same example among the package's tests, clears the settings a
// developer's environment may hold, and keeps the plain progress lines of
// long searches out of the stderr tests check (TestProgressWithoutTerminal
// asks for them). It returns m.Run's exit status. A test binary that
// Command starts runs stdbg's command line instead, with its arguments.
//
// A Go module outside stdbg's is built with sthread from the source tree
// under test (STDBG_SOURCE, set by testcache.Setup) rather than from the
// copy each fresh cache would write: the same sources at the same path, so
// that the go command's build cache serves every package of tests after
// the first.
func Main(m *testing.M) int {
	if os.Getenv(asStdbg) == "1" {
		// Started by Command: the test binary is stdbg's command.
		return cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	}
	dir, err := os.MkdirTemp("", "stdbg-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "clirun:", err)
		return 2
	}
	defer os.RemoveAll(dir)
	ownDir = dir
	remove, err := testcache.Setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "clirun:", err)
		return 2
	}
	defer remove()
	os.Setenv("STDBG_NO_SAVE", "1")
	session.ShareBuilds(true)
	for _, k := range []string{"STDBG_MAX_DEPTH", "STDBG_ALL", "STDBG_JSON", "STDBG_TRANSITION_TIMEOUT"} {
		os.Unsetenv(k)
	}
	cli.ProgressEvery = time.Hour
	return m.Run()
}

// asStdbg, set to 1 in a test binary's environment, makes Main run
// stdbg's command line instead of the tests.
const asStdbg = "STDBG_CLIRUN_AS_STDBG"

// Command returns the command that runs stdbg with args as a process of
// its own (for the tests that send it signals or give it a terminal): the
// test binary itself, whose Main then does what stdbg's main does (call
// cli.Run with the process's arguments, standard streams and exit
// status), so that no go build of stdbg is needed. The environment is the
// test's.
func Command(ctx context.Context, args ...string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), asStdbg+"=1")
	return cmd
}

// Dir is the directory Main made for the test binary, removed when its
// tests end: for what the package's tests share (a module written once,
// a build of Delve), which another package's never see, unlike stdbg's
// cache, which a run may share among packages (testcache.SharedEnv).
func Dir() string { return ownDir }

// Stdbg runs the command line args in-process and returns its stdout,
// stderr and exit status.
func Stdbg(t testing.TB, args ...string) (string, string, int) {
	t.Helper()
	return Input(t, nil, args...)
}

// Input is Stdbg with stdin (what GDB, Delve and stdbg dap read).
func Input(t testing.TB, stdin io.Reader, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(args, stdin, &out, &errb)
	return out.String(), errb.String(), code
}

// Root is the path of the repository's root from the test's directory (a
// relative path, as a user in the repository would type it).
func Root() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	dir, err := testcache.Root()
	if err != nil {
		panic("clirun: " + err.Error())
	}
	rel, err := filepath.Rel(wd, dir)
	if err != nil {
		panic(err)
	}
	return rel
}

// Example is the path of examples/c/name.
func Example(name string) string {
	return filepath.Join(Root(), "examples", "c", name)
}

// WriteFile writes text into dir/name and returns its path.
func WriteFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// LastSaved is the corpus entry find says it saved last: the final one of
// a bug reported as found, then minimised.
func LastSaved(out string) string {
	m := regexp.MustCompile(`Saved (\S+\.json)`).FindAllStringSubmatch(out, -1)
	if m == nil {
		return ""
	}
	return m[len(m)-1][1]
}

// SettingKept checks that a setting given by the environment, kv
// ("STDBG_NAME=value"), is saved in the corpus entry of the bug that
// `stdbg find ARGS --no-save=false --corpus DIR` finds with it (its output
// holding every string of found), and that a replay of the entry and
// `corpus run` reproduce that bug (their output holding replayed) with the
// environment saying other instead: the entry's own setting wins.
func SettingKept(t *testing.T, kv, other string, args, found []string, replayed string) {
	t.Helper()
	name, value, _ := strings.Cut(kv, "=")
	corpusDir := t.TempDir()
	t.Setenv(name, value)
	out, errs, code := Stdbg(t, append([]string{"find"}, append(args, "--no-save=false", "--corpus", corpusDir)...)...)
	ok := code == cli.ExitBug
	for _, s := range found {
		ok = ok && strings.Contains(out, s)
	}
	if !ok {
		t.Fatalf("find with %s: exit %d\n%s\n%s", kv, code, out, errs)
	}
	paths, _ := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	if len(paths) != 1 {
		t.Fatalf("corpus holds %v, want one entry", paths)
	}
	e, err := corpus.Load(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(e.Target.Env, kv) {
		t.Errorf("entry's environment %q lacks %s", e.Target.Env, kv)
	}
	t.Setenv(name, other)
	out, errs, code = Stdbg(t, "replay", "--races=false", paths[0])
	if code != cli.ExitBug || !strings.Contains(out, replayed) {
		t.Fatalf("replay of the entry: exit %d\n%s\n%s", code, out, errs)
	}
	out, errs, code = Stdbg(t, "corpus", "run", corpusDir)
	if code != cli.ExitBug || !strings.Contains(out, "REPRODUCES") {
		t.Fatalf("corpus run: exit %d\n%s\n%s", code, out, errs)
	}
}
