package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// installEnv is the variable that runs TestInstalled (.ci/run sets it):
// the first run of the test on a machine compiles stdbg and its
// dependencies with -trimpath, which takes minutes on two CPUs.
const installEnv = "STDBG_TEST_INSTALL"

// installVersion is the version of stdbg that TestInstalled installs from
// a module proxy of its own.
const installVersion = "v0.99.0"

// installedBug is a plain-Go module with a lock-order deadlock in a test.
var installedBug = map[string]string{
	"go.mod": "module example.com/embrace\n\ngo 1.22\n",
	"embrace_test.go": `package embrace

import (
	"sync"
	"testing"
)

func TestEmbrace(t *testing.T) {
	var a, b sync.Mutex
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b.Lock()
		a.Lock()
		a.Unlock()
		b.Unlock()
	}()
	a.Lock()
	b.Lock()
	b.Unlock()
	a.Unlock()
	wg.Wait()
}
`,
	"c/embrace.c": `#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;

static void *other(void *arg) {
	pthread_mutex_lock(&b);
	pthread_mutex_lock(&a);
	pthread_mutex_unlock(&a);
	pthread_mutex_unlock(&b);
	return arg;
}

int main(void) {
	pthread_t t;
	pthread_create(&t, NULL, other, NULL);
	pthread_mutex_lock(&a);
	pthread_mutex_lock(&b);
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	pthread_join(t, NULL);
	return 0;
}
`,
}

// TestInstalled installs stdbg the two ways a user does, each into a
// GOBIN of its own, removes the sources it was installed from, and checks
// that the binary alone finds the bug of a plain Go test and of a C
// program, with nothing set but its cache: go install ./cmd/stdbg from a
// source tree then deleted, and go install
// github.com/stdbg/stdbg/cmd/stdbg@version from a module proxy (a file://
// one made from this tree, with the module cache's downloads behind it for
// the dependencies), the module cache it went to then removed.
func TestInstalled(t *testing.T) {
	if os.Getenv(installEnv) == "" {
		t.Skipf("installs stdbg twice: set %s=1 (.ci/run does)", installEnv)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	mv := module.Version{Path: "github.com/stdbg/stdbg", Version: installVersion}
	proxy := filepath.Join(tmp, "proxy", "github.com", "stdbg", "stdbg", "@v")
	if err := os.MkdirAll(proxy, 0o755); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	if err := zip.CreateFromDir(&z, mv, root); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":                   []byte(installVersion + "\n"),
		installVersion + ".info": []byte(`{"Version":"` + installVersion + `","Time":"2026-11-30T00:00:00Z"}`),
		installVersion + ".mod":  mod,
		installVersion + ".zip":  z.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(proxy, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	downloads := filepath.Join(goEnv("GOMODCACHE"), "cache", "download")

	// Nothing of the tests' or the user's settings that points at
	// stdbg's sources.
	base := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "STDBG_") && !strings.HasPrefix(kv, "GOFLAGS=") && !strings.HasPrefix(kv, "GOWORK=") {
			base = append(base, kv)
		}
	}
	run := func(t *testing.T, dir string, env []string, name string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(append([]string(nil), base...), env...)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		return string(out), code
	}

	tests := []struct {
		name    string
		install func(t *testing.T, bin string) []string // installs into bin; returns the environment to run it in
	}{
		{"go install ./cmd/stdbg", func(t *testing.T, bin string) []string {
			src := filepath.Join(tmp, "src")
			if err := zip.Unzip(src, mv, filepath.Join(proxy, installVersion+".zip")); err != nil {
				t.Fatal(err)
			}
			if out, code := run(t, src, []string{"GOBIN=" + bin, "GOFLAGS=-trimpath"}, "go", "install", "./cmd/stdbg"); code != 0 {
				t.Fatalf("go install ./cmd/stdbg: exit %d\n%s", code, out)
			}
			if err := os.RemoveAll(src); err != nil {
				t.Fatal(err)
			}
			return nil
		}},
		{"go install @version", func(t *testing.T, bin string) []string {
			modcache := filepath.Join(tmp, "modcache")
			env := []string{
				"GOMODCACHE=" + modcache, "GOFLAGS=-modcacherw -trimpath", "GOSUMDB=off",
				"GOPROXY=file://" + filepath.Join(tmp, "proxy") + ",file://" + downloads,
			}
			if out, code := run(t, tmp, append(env, "GOBIN="+bin), "go", "install", "github.com/stdbg/stdbg/cmd/stdbg@"+installVersion); code != 0 {
				t.Fatalf("go install @%s: exit %d\n%s", installVersion, code, out)
			}
			if err := os.RemoveAll(filepath.Join(modcache, "github.com", "stdbg")); err != nil {
				t.Fatal(err)
			}
			return env[:1] // the module cache that has the dependencies
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin := filepath.Join(tmp, "bin", string(rune('a'+i)))
			env := tt.install(t, bin)
			exe := filepath.Join(bin, "stdbg")
			mod := filepath.Join(tmp, "mod", string(rune('a'+i)))
			for name, text := range installedBug {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(mod, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			env = append(env, "STDBG_CACHE="+filepath.Join(tmp, "cache", string(rune('a'+i))), "STDBG_NO_SAVE=1")
			out, code := run(t, mod, env, exe, "test", "./...")
			if code != exitBug || !strings.Contains(out, "TestEmbrace") || !strings.Contains(out, "DEADLOCK") {
				t.Errorf("stdbg test ./...: exit %d, want %d and the deadlock of TestEmbrace:\n%s", code, exitBug, out)
			}
			out, code = run(t, mod, env, exe, "find", "c/embrace.c")
			if code != exitBug || !strings.Contains(out, "DEADLOCK") {
				t.Errorf("stdbg find c/embrace.c: exit %d, want %d and a deadlock:\n%s", code, exitBug, out)
			}
		})
	}
}

// TestGradeNotInstalled checks that stdbg grade says so when stdbg cannot
// build Go programs (here STDBG_SOURCE names no source tree of stdbg's):
// exit status 2, one line, nothing written, rather than a grade of 0 for a
// program that does not build.
func TestGradeNotInstalled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go exercise")
	}
	t.Setenv("STDBG_SOURCE", t.TempDir())
	ex := filepath.Join("..", "..", "exercises", "go", "lazy-init")
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	status := run([]string{"grade", "--out", out, filepath.Join(ex, "assignment.yaml"), filepath.Join(ex, "solution")}, &stdout, &stderr)
	msg := strings.TrimSpace(stderr.String())
	if status != exitUsage || !strings.Contains(msg, "stdbg is not installed correctly") {
		t.Fatalf("status %d, want %d, saying stdbg is not installed correctly; stdout:\n%s\nstderr:\n%s", status, exitUsage, stdout.String(), msg)
	}
	last := msg[strings.LastIndexByte(msg, '\n')+1:]
	if !strings.Contains(last, "stdbg is not installed correctly") {
		t.Errorf("the last line of stderr does not say it: %q", last)
	}
	if strings.Contains(stdout.String(), "points") {
		t.Errorf("a grade was printed:\n%s", stdout.String())
	}
	if ents, _ := os.ReadDir(out); len(ents) > 0 {
		t.Errorf("%s written: %v", out, ents)
	}
}

// TestToolchainLocal checks a module that needs a newer Go than the local
// one while GOTOOLCHAIN=local forbids the go command to fetch it: stdbg
// test and stdbg find fail in one line, with exit status 2, naming the
// command that lets the go command fetch it.
func TestToolchainLocal(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":    "module example.com/future\n\ngo 1.99.0\n",
		"f_test.go": "package future\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GOTOOLCHAIN", "local")
	t.Chdir(dir)
	for _, args := range [][]string{{"test", "./..."}, {"find", "-run", "TestF", "."}} {
		var stdout, stderr bytes.Buffer
		status := run(args, &stdout, &stderr)
		msg := strings.TrimSpace(stderr.String())
		want := "GOTOOLCHAIN=auto stdbg " + strings.Join(args, " ") + " lets the go command fetch Go 1.99.0"
		if status != exitUsage || strings.Contains(msg, "\n") || !strings.Contains(msg, want) {
			t.Errorf("stdbg %s: status %d, want %d and one line with %q; stderr:\n%s", strings.Join(args, " "), status, exitUsage, want, msg)
		}
	}
}
