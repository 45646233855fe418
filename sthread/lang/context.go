package lang

import (
	"context"
	"testing"

	scontext "github.com/stdbg/stdbg/sthread/context"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Context is t.Context(). Under a check it is a context of the checked
// program (sthread/context's WithCancel of context.Background), cancelled
// when the test (or subtest) ends in the execution, just before its
// cleanups run, as package testing cancels a test's context: a goroutine
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
	rt.Cleanup(contextOf{t}, cancel)
	return ctx
}

// contextOf is the key under which the cancellations of t's contexts are
// registered with the test's cleanups (rt.Cleanup): cancelContexts runs
// them before the test's own.
type contextOf struct{ t testing.TB }

// cancelContexts cancels the contexts that Context gave for t in the
// execution of the calling checked goroutine.
//
//go:norace
func cancelContexts(t testing.TB) { rt.RunCleanups(contextOf{t}) }
