package stdbg_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// exitBug is stdbg's exit status when it found a bug.
const exitBug = 1

// installVersion is the version of stdbg that TestInstalled installs from
// a module proxy of its own.
const installVersion = "v0.99.0"

// installedBug is a plain-Go module with a lock-order deadlock in a test,
// and the same deadlock in C.
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

// TestInstalled installs stdbg the two ways a user does, each into a GOBIN
// of its own, removes the sources it was installed from, and checks that
// the binary alone finds the bug of a plain Go test and of a C program,
// with nothing set but its cache: go install ./cmd/stdbg from a source
// tree then deleted, and go install github.com/stdbg/stdbg/cmd/stdbg@version
// from a module proxy (a file:// one holding this tree as that version,
// the module cache's downloads behind it for the dependencies), the
// module cache it went to then removed. The source tree is the module's
// zip, so the first form also checks that the files stdbg carries are
// all in what a module proxy serves.
//
// Both installs use -trimpath: what they compile does not depend on the
// temporary directories, so the go command's build cache has it from the
// last run (and the standard library and the dependencies are compiled
// once for both). The two binaries share one cache directory: the second
// finds the sources the first wrote there (they carry the same), which is
// checked, and builds nothing of sthread again.
func TestInstalled(t *testing.T) {
	if testing.Short() {
		t.Skip("installs stdbg twice with the go command")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Fatalf("the C check needs gcc: %v", err)
	}
	root, err := filepath.Abs(".")
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
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	downloads := filepath.Join(strings.TrimSpace(string(out)), "cache", "download")

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
		start := time.Now()
		out, err := cmd.CombinedOutput()
		t.Logf("%s %s: %.1fs", filepath.Base(name), strings.Join(args, " "), time.Since(start).Seconds())
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		return string(out), code
	}

	target := filepath.Join(tmp, "target")
	for name, text := range installedBug {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(target, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(target, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := filepath.Join(tmp, "cache")

	tests := []struct {
		name    string
		install func(t *testing.T, bin string)
	}{
		{"go install ./cmd/stdbg", func(t *testing.T, bin string) {
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
		}},
		{"go install @version", func(t *testing.T, bin string) {
			modcache := filepath.Join(tmp, "modcache")
			env := []string{
				"GOBIN=" + bin, "GOMODCACHE=" + modcache, "GOFLAGS=-modcacherw -trimpath", "GOSUMDB=off",
				"GOPROXY=file://" + filepath.Join(tmp, "proxy") + ",file://" + downloads,
			}
			if out, code := run(t, tmp, env, "go", "install", mv.Path+"/cmd/stdbg@"+installVersion); code != 0 {
				t.Fatalf("go install @%s: exit %d\n%s", installVersion, code, out)
			}
			if err := os.RemoveAll(modcache); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for i, tt := range tests {
		ok := t.Run(tt.name, func(t *testing.T) {
			bin := filepath.Join(tmp, "bin", string(rune('a'+i)))
			tt.install(t, bin)
			exe := filepath.Join(bin, "stdbg")
			env := []string{"STDBG_CACHE=" + cache, "STDBG_NO_SAVE=1"}
			out, code := run(t, target, env, exe, "test", "./...")
			if code != exitBug || !strings.Contains(out, "TestEmbrace") || !strings.Contains(out, "DEADLOCK") {
				t.Errorf("stdbg test ./...: exit %d, want %d and the deadlock of TestEmbrace:\n%s", code, exitBug, out)
			}
			out, code = run(t, target, env, exe, "find", "c/embrace.c")
			if code != exitBug || !strings.Contains(out, "DEADLOCK") {
				t.Errorf("stdbg find c/embrace.c: exit %d, want %d and a deadlock:\n%s", code, exitBug, out)
			}
		})
		if !ok {
			return
		}
	}
	// Written once, by content, whichever binary wrote them.
	ents, err := os.ReadDir(filepath.Join(cache, "gosrc"))
	if err != nil || len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the two binaries' sources under %s: %v (%v), want one directory", filepath.Join(cache, "gosrc"), names, err)
	}
}
