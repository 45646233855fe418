package corpus_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/corpus"
)

// project makes a project (a directory with .git) holding a corpus entry
// directory, a program and a link out of the project.
func project(t *testing.T) (root, entry string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "proj")
	for _, d := range []string{".git", "testdata/stdbg/prog", "bin"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(root, "bin", "prog"), filepath.Join(root, "prog.c"), filepath.Join(base, "outside")} {
		if err := os.WriteFile(f, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(root, "bin", "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "bin"), filepath.Join(root, "inner")); err != nil {
		t.Fatal(err)
	}
	return root, filepath.Join(root, "testdata", "stdbg", "prog", "deadlock-1.json")
}

func TestResolve(t *testing.T) {
	root, entry := project(t)
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{"../../../bin/prog", true},
		{"../../../prog.c", true},
		{"../../../inner/prog", true},        // a link that stays inside
		{"../../../bin/not-built-yet", true}, // missing: the build's business
		{"/bin/sh", false},
		{"../../../../outside", false},
		{"../../../bin/escape", false}, // a link out
		{"../../../../../../../../../../bin/sh", false},
		{"", false},
	} {
		got, err := corpus.Resolve(entry, "target.binary", tc.path)
		if tc.ok != (err == nil) {
			t.Errorf("Resolve(%q) = %q, %v; want ok %v", tc.path, got, err, tc.ok)
			continue
		}
		var refused *corpus.RefusedError
		if err != nil && (!errors.As(err, &refused) || refused.Field != "target.binary" || !strings.Contains(err.Error(), entry)) {
			t.Errorf("Resolve(%q): %v does not name the entry and the field", tc.path, err)
		}
		if err == nil && !strings.HasPrefix(filepath.Clean(got), root) {
			t.Errorf("Resolve(%q) = %q, outside %s", tc.path, got, root)
		}
	}
}

func TestCheckEnv(t *testing.T) {
	for _, tc := range []struct {
		env []string
		ok  bool
	}{
		{nil, true},
		{[]string{"STDBG_RAND_SEED=3"}, true},
		{[]string{"LD_PRELOAD=/tmp/evil.so"}, false},
		{[]string{"STDBG_RAND_SEED=1", "PATH=/tmp"}, false},
		{[]string{"STDBG_RAND_SEED"}, false},
		{[]string{"BASH_ENV=x"}, false},
	} {
		if err := corpus.CheckEnv("e.json", tc.env); tc.ok != (err == nil) {
			t.Errorf("CheckEnv(%q) = %v, want ok %v", tc.env, err, tc.ok)
		}
	}
}

// An entry in no project may name what lies in its own tree: the
// directory holding its testdata, where find put it next to its target.
func TestResolveOutsideProjects(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "loose", "testdata", "stdbg", "racy")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(dir, "assertion-1.json")
	if _, err := corpus.Resolve(entry, "target.source", "../../../racy.c"); err != nil {
		t.Errorf("the target next to the corpus: %v", err)
	}
	if _, err := corpus.Resolve(entry, "target.binary", "../../../../elsewhere/prog"); err == nil {
		t.Error("a program beside the tree was accepted")
	}
}

// stdbg find --corpus DIR, run in a directory of no project, writes
// entries that name its program outside DIR: run from that directory, they
// are accepted; run from another directory of no project, refused.
func TestResolveFromTheDirectoryFindRanIn(t *testing.T) {
	base := t.TempDir()
	proj, corp, other := filepath.Join(base, "proj"), filepath.Join(base, "corp"), filepath.Join(base, "other")
	for _, d := range []string{proj, corp, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	entry := filepath.Join(corp, "deadlock-1.json")
	t.Chdir(proj)
	if _, err := corpus.Resolve(entry, "target.source", "../proj/embrace.c"); err != nil {
		t.Errorf("run where find ran: %v", err)
	}
	t.Chdir(other)
	if _, err := corpus.Resolve(entry, "target.source", "../proj/embrace.c"); err == nil {
		t.Error("run from another directory: accepted")
	}
}
