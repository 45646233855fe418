package session

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
)

// xsyncModule is a module of plain Go tests that synchronise through
// golang.org/x/sync, a dependency whose semaphore blocks on channels of
// its own and whose errgroup starts the goroutines.
var xsyncModule = map[string]string{
	"go.mod": "module example.com/xsync\n\ngo 1.26.0\n\nrequire golang.org/x/sync v0.23.0\n",
	"go.sum": "golang.org/x/sync v0.23.0 h1:KameEIfc1IkluZyXWLn39Wd4tURc6GbCiISGiZm2bQk=\n" +
		"golang.org/x/sync v0.23.0/go.mod h1:sUUOizhqBxiL6pEWpqNLUiaJn1ShEbZ6BBqskPbjZm0=\n",
	"xsync_test.go": `package xsync

import (
	"context"
	"errors"
	"testing"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"
)

// Correct: the second Acquire waits for the Release of the goroutine.
func TestReleaseWakesAcquire(t *testing.T) {
	ctx := context.Background()
	sem := semaphore.NewWeighted(1)
	if err := sem.Acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	go sem.Release(1)
	if err := sem.Acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
}

// A bug: the worker may deliver before the failure cancels the group's
// context, and the test assumes it cannot.
func TestWorkerAfterFailure(t *testing.T) {
	g, ctx := errgroup.WithContext(context.Background())
	results := make(chan int, 1)
	g.Go(func() error { return errors.New("fail") })
	g.Go(func() error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case results <- 1:
			return nil
		}
	})
	if err := g.Wait(); err == nil {
		t.Fatal("the group did not fail")
	}
	if len(results) != 0 {
		t.Error("a worker delivered although the group failed")
	}
}
`,
}

// writeModule writes the files of a module into a new directory.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The packages of dependency modules are rewritten as the main module's:
// a semaphore of golang.org/x/sync whose Release a goroutine makes is
// judged correct (its Acquire waits in the model, where the goroutine that
// releases runs), and a bug whose schedule goes through errgroup's
// goroutines and its context's cancellation is found.
func TestDependenciesRewritten(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries with a module of the module cache")
	}
	dir := writeModule(t, xsyncModule)
	tests := []struct {
		test     string
		complete bool
		bug      search.Kind // Exited: none
	}{
		{test: "TestReleaseWakesAcquire", complete: true},
		{test: "TestWorkerAfterFailure", bug: search.AssertionFailure},
	}
	for _, tc := range tests {
		t.Run(tc.test, func(t *testing.T) {
			tg, err := Resolve([]string{dir}, Build{Run: "^" + tc.test + "$"})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tg.Unmodelled {
				if strings.Contains(w, "golang.org/x/sync") {
					t.Errorf("x/sync listed as not modelled: %s", w)
				}
			}
			got := findIn(t, dir, tc.test, false)
			if tc.bug == search.Exited {
				if len(got.bugs) > 0 || !got.complete {
					t.Errorf("bugs %v at %s, complete %v; want no bug and a complete search", got.bugs, got.where, got.complete)
				}
				return
			}
			if !slices.Contains(got.bugs, tc.bug) {
				t.Errorf("bugs %v at %s; want %v", got.bugs, got.where, tc.bug)
			}
		})
	}
}
