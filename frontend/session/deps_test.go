package session

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/cachedir"
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

// unbuildableDepModule is a module whose test uses a local dependency
// module (example.com/d, replaced by a directory) at go 1.21, whose range
// over a channel into a map element keyed by a call cannot be rewritten
// for its language version (the rewritten loop ranges over a function's
// iterator, Go 1.23's).
var unbuildableDepModule = map[string]string{
	"go.mod":   "module example.com/m\n\ngo 1.26.0\n\nrequire example.com/d v0.0.0\n\nreplace example.com/d => ./d\n",
	"d/go.mod": "module example.com/d\n\ngo 1.21\n",
	"d/d.go": `package d

// Collect receives the values of ch into a map keyed by their order.
func Collect(ch chan int) map[int]int {
	m := map[int]int{}
	i := 0
	next := func() int { i++; return i }
	for m[next()] = range ch {
	}
	return m
}

// Send sends n values on ch from a goroutine, then closes it.
func Send(ch chan int, n int) {
	go func() {
		for i := 0; i < n; i++ {
			ch <- i
		}
		close(ch)
	}()
}
`,
	"m_test.go": `package m

import (
	"testing"

	"example.com/d"
)

func TestCollect(t *testing.T) {
	ch := make(chan int)
	d.Send(ch, 2)
	if got := d.Collect(ch); len(got) != 2 {
		t.Fatalf("got %v", got)
	}
}
`,
}

// A dependency whose rewritten code does not compile does not fail the
// build: the test is built with the main module alone rewritten, a warning
// says which modules then run unchecked and why (the compiler's line, at
// the dependency's own file), and they are listed among what is not
// modelled, so that no search of the test is called exhaustive.
func TestDependencyRewriteFallback(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary twice")
	}
	dir := writeModule(t, unbuildableDepModule)
	tg, err := Resolve([]string{dir}, Build{Run: "^TestCollect$"})
	if err != nil {
		t.Fatalf("the build failed instead of falling back to the main module alone: %v", err)
	}
	var warning string
	for _, w := range tg.Warnings {
		if strings.Contains(w, "example.com/d") && strings.Contains(w, "rewritten code does not build") {
			warning = w
		}
	}
	if warning == "" {
		t.Fatalf("no warning says example.com/d's rewritten code does not build: %q", tg.Warnings)
	}
	if orig := filepath.Join(dir, "d", "d.go") + ":"; !strings.Contains(warning, orig) {
		t.Errorf("the warning does not name the dependency's own file (%s): %s", orig, warning)
	}
	if cache, err := cachedir.Dir(); err == nil && strings.Contains(warning, cache) {
		t.Errorf("the warning names the rewritten copy under stdbg's cache: %s", warning)
	}
	listed := false
	for _, w := range tg.Unmodelled {
		listed = listed || strings.Contains(w, "example.com/d")
	}
	if !listed {
		t.Errorf("example.com/d, not rewritten, is not listed among what is not modelled: %q", tg.Unmodelled)
	}
	got := findIn(t, dir, "TestCollect", false)
	if len(got.bugs) > 0 || !got.complete {
		t.Errorf("bugs %v at %s, complete %v; want no bug and a complete search", got.bugs, got.where, got.complete)
	}
}

// lockOrderDepModule is a module whose test makes a local dependency
// module (example.com/bank) take two locks in opposite orders: the
// deadlock's steps and waits are in the dependency's file.
var lockOrderDepModule = map[string]string{
	"go.mod":      "module example.com/m\n\ngo 1.26.0\n\nrequire example.com/bank v0.0.0\n\nreplace example.com/bank => ./bank\n",
	"bank/go.mod": "module example.com/bank\n\ngo 1.22\n",
	"bank/bank.go": `package bank

import "sync"

// Account is a balance behind a lock.
type Account struct {
	mu      sync.Mutex
	Balance int
}

// Transfer moves n from a to b, holding both locks.
func Transfer(a, b *Account, n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	a.Balance -= n
	b.Balance += n
}
`,
	"m_test.go": `package m

import (
	"sync"
	"testing"

	"example.com/bank"
)

func TestTransfer(t *testing.T) {
	x, y := &bank.Account{Balance: 10}, &bank.Account{Balance: 10}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); bank.Transfer(x, y, 1) }()
	go func() { defer wg.Done(); bank.Transfer(y, x, 1) }()
	wg.Wait()
}
`,
}

// A report's lines in a rewritten dependency name the dependency's own
// file, which a user can open (and its text is that file's), not the
// rewritten copy that stdbg compiled under its cache.
func TestDependencyPathsInReports(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := writeModule(t, lockOrderDepModule)
	orig := filepath.Join(dir, "bank", "bank.go")
	tg, err := Resolve([]string{dir}, Build{Run: "^TestTransfer$"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(tg, Options{FastExit: true, KeepThreads: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	spec, _, err := search.Spec{}.Normal()
	if err != nil {
		t.Fatal(err)
	}
	f := &Find{Plan: Plan{Request: hunt.Request{Search: spec, MaxDepth: GoMaxDepth}, InTarget: true, Jobs: 1}}
	found, err := s.Find(context.Background(), f)
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	if len(found.Findings) == 0 || found.Findings[0].Report == nil {
		t.Fatalf("no report of the deadlock: %+v", found.Findings)
	}
	r := found.Findings[0].Report
	var locs []report.Location
	for _, st := range r.Steps {
		locs = append(locs, st.Where)
	}
	for _, w := range r.Waits {
		locs = append(locs, w.Where)
	}
	inBank := 0
	for _, l := range locs {
		if filepath.Base(l.File) != "bank.go" {
			continue
		}
		inBank++
		if l.File != orig {
			t.Errorf("a line of the dependency is shown at %s:%d; want %s", l.File, l.Line, orig)
		}
		if want := map[int]string{13: "a.mu.Lock()", 15: "b.mu.Lock()"}[l.Line]; l.Source != want {
			t.Errorf("%s:%d shows %q; want %q", l.File, l.Line, l.Source, want)
		}
	}
	if inBank == 0 {
		t.Errorf("no step or wait of the report is in the dependency's bank.go: %+v", locs)
	}
}
