package lang

import (
	"context"
	"testing"

	scontext "github.com/stdbg/stdbg/sthread/context"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Context is t.Context(). Under a check it is a context of the checked
// program (sthread/context's WithCancel of context.Background), cancelled
// when the test (or subtest, or the function of synctest.Test) ends in the
// execution, just before its cleanups run, as package testing cancels a
// test's context: a goroutine
// or a cleanup waiting for it is woken there. (Package testing's own
// context would be cancelled once the whole search is over.) Each call
// under a check gives a context of its own, all cancelled together.
// Elsewhere it is t.Context().
//
//go:norace
func Context(t testing.TB) context.Context {
	if _, ok := rt.Current(); !ok {
		return t.Context()
	}
	ctx, cancel := scontext.WithCancel(context.Background())
	rt.Cleanup(contextOf{scope(t)}, cancel)
	return ctx
}

// contextOf is the key under which the cancellations of the contexts of a
// test (or of a bubble of testing/synctest) are registered with the
// test's cleanups (rt.Cleanup): cancelContexts runs them before the
// test's own.
type contextOf struct{ test any }

// cancelContexts cancels the contexts that Context gave for test in the
// execution of the calling checked goroutine.
//
//go:norace
func cancelContexts(test any) { rt.RunCleanups(contextOf{test}) }
