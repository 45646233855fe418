package goinstr

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseDeps(t *testing.T) {
	tests := []struct {
		in      string
		want    Deps
		wantErr bool
	}{
		{in: "", want: Deps{}},
		{in: "all", want: Deps{}},
		{in: "none", want: Deps{None: true}},
		{in: "golang.org/x/sync", want: Deps{Only: []string{"golang.org/x/sync"}}},
		{in: "golang.org/x/sync, github.com/jackc/puddle/v2", want: Deps{Only: []string{"golang.org/x/sync", "github.com/jackc/puddle/v2"}}},
		{in: "golang.org/x/sync,", wantErr: true},
		{in: "golang.org/x/sync@v0.23.0", wantErr: true},
		{in: "none,golang.org/x/sync", wantErr: true},
	}
	for _, tc := range tests {
		got, err := ParseDeps(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseDeps(%q): error %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseDeps(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
		if err == nil {
			if again, _ := ParseDeps(got.String()); !reflect.DeepEqual(again, got) {
				t.Errorf("ParseDeps(%q).String() = %q reads back as %+v", tc.in, got.String(), again)
			}
		}
	}
}

// The modules the checker runs on (those sthread imports) and stdbg's are
// never rewritten: their rewritten code would import sthread, which
// imports them.
func TestSelectDeps(t *testing.T) {
	mods := []string{"github.com/ianlancetaylor/demangle", "github.com/stdbg/stdbg", "golang.org/x/sync", "golang.org/x/sys"}
	tests := []struct {
		deps Deps
		want []string
	}{
		{Deps{}, []string{"golang.org/x/sync"}},
		{Deps{None: true}, nil},
		{Deps{Only: []string{"golang.org/x/sys", "golang.org/x/sync"}}, []string{"golang.org/x/sync"}},
		{Deps{Only: []string{"example.com/other"}}, nil},
	}
	for _, tc := range tests {
		rewrite, kept, err := selectDeps(tc.deps, mods)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range mods {
			if rewrite[m] {
				got = append(got, m)
			}
		}
		if !reflect.DeepEqual(got, tc.want) || len(got)+len(kept) != len(mods) {
			t.Errorf("%s: rewrite %v, kept %v; want rewrite %v", tc.deps, got, kept, tc.want)
		}
	}
}

// xsyncFiles is a module whose test uses golang.org/x/sync's semaphore.
var xsyncFiles = map[string]string{
	"go.mod": "module example.com/xsync\n\ngo 1.26.0\n\nrequire golang.org/x/sync v0.23.0\n",
	"go.sum": "golang.org/x/sync v0.23.0 h1:KameEIfc1IkluZyXWLn39Wd4tURc6GbCiISGiZm2bQk=\n" +
		"golang.org/x/sync v0.23.0/go.mod h1:sUUOizhqBxiL6pEWpqNLUiaJn1ShEbZ6BBqskPbjZm0=\n",
	"sem_test.go": `package xsync

import (
	"context"
	"testing"

	"golang.org/x/sync/semaphore"
)

func TestReleaseWakesAcquire(t *testing.T) {
	sem := semaphore.NewWeighted(1)
	sem.Acquire(context.Background(), 1)
	go sem.Release(1)
	sem.Acquire(context.Background(), 1)
}
`,
}

// Instrument rewrites the packages of the dependency modules into a copy
// of each (the go command takes no overlay of the module cache), which
// WorkspaceFor puts in the module's place; STDBG_GO_DEPS=none keeps them
// as they are, and says they are not modelled. The module cache is not
// touched.
func TestInstrumentDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a module of the module cache")
	}
	dir := t.TempDir()
	for name, text := range xsyncFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	res, err := Instrument(Config{Dir: dir, Tests: true, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Deps, []string{"golang.org/x/sync"}) {
		t.Fatalf("rewritten dependencies %v, want golang.org/x/sync", res.Deps)
	}
	for _, w := range res.Unmodelled {
		if strings.Contains(w, "golang.org/x/sync") {
			t.Errorf("x/sync not modelled: %s", w)
		}
	}
	copyDir := res.Replace["golang.org/x/sync"]
	if !strings.HasPrefix(copyDir, cache) {
		t.Fatalf("the copy of x/sync is at %q, want one under the cache %s", copyDir, cache)
	}
	src, err := os.ReadFile(filepath.Join(copyDir, "semaphore", "semaphore.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `"github.com/stdbg/stdbg/sthread/`) {
		t.Errorf("the copy of semaphore.go imports no package of sthread:\n%s", src)
	}
	// Its lines keep the original file's name: what the binary's line
	// table, and so every trace, says.
	first, _, _ := strings.Cut(string(src), "\n")
	orig, ok := strings.CutPrefix(first, "//line ")
	orig, _, _ = strings.Cut(orig, ":")
	if !ok || strings.HasPrefix(orig, cache) || !strings.HasSuffix(orig, filepath.FromSlash("golang.org/x/sync@v0.23.0/semaphore/semaphore.go")) {
		t.Errorf("the copy of semaphore.go begins with %q; want a line directive naming the module cache's file", first)
	} else if _, err := os.Stat(orig); err != nil {
		t.Errorf("the copy's line directive names %s: %v", orig, err)
	}
	if _, err := os.Stat(filepath.Join(copyDir, "go.mod")); err != nil {
		t.Errorf("the copy has no go.mod: %v", err)
	}
	for orig := range overlayOf(t, res.Overlay) {
		if !strings.HasPrefix(orig, dir) {
			t.Errorf("the overlay replaces %s, outside the module checked", orig)
		}
	}
	ws, err := WorkspaceFor(dir, cache, true, res.Replace)
	if err != nil {
		t.Fatal(err)
	}
	work, err := os.ReadFile(ws.Work)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(work), "replace golang.org/x/sync => "+copyDir) {
		t.Errorf("go.work does not replace x/sync by its copy:\n%s", work)
	}

	none, err := Instrument(Config{Dir: dir, Tests: true, Cache: cache, Deps: Deps{None: true}})
	if err != nil {
		t.Fatal(err)
	}
	if none.Cached || none.Overlay == res.Overlay || len(none.Deps) > 0 || len(none.Replace) > 0 {
		t.Errorf("with no dependency rewritten: cached %v, overlay %s (the other %s), deps %v, replace %v; want a build of its own that rewrites none",
			none.Cached, none.Overlay, res.Overlay, none.Deps, none.Replace)
	}
	listed := false
	for _, w := range none.Unmodelled {
		listed = listed || strings.Contains(w, "golang.org/x/sync")
	}
	if !listed {
		t.Errorf("x/sync, not rewritten, is not listed among what is not modelled: %q", none.Unmodelled)
	}
}
