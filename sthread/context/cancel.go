package context

import (
	"context"
	"sync"
	"time"

	"github.com/stdbg/stdbg/sthread/internal/rt"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// The contexts made under a check: a cancelable context, with or without a
// deadline, whose Done is a channel of the checked program, and a context
// without cancellation.

// closed reports whether done is closed, by a visible poll of it (a
// receive with a default case), ordered with the close that cancels its
// context.
//
//go:norace
func closed(done chan struct{}) bool {
	return rt.Select([]rt.Case{rt.CheckedChan(done).RecvCase(nil, nil), rt.Default()}) == 0
}

// cancelCtxKey is the key by which a context finds its nearest checked
// cancelable ancestor, as the context package does for its own.
var cancelCtxKey int

// cancelCtx is a cancelable context under a check.
type cancelCtx struct {
	context.Context // the parent

	mu   sync.Mutex // never held across a scheduling point
	done chan struct{}
	// mark is never ready: a poll of it begins every cancel of c, and
	// orders the cancels (see cancel).
	mark     chan struct{}
	err      error
	cause    error
	children map[*cancelCtx]struct{}
	deadline time.Time
	hasDL    bool
	timer    *stime.Timer
	// afters are the functions of AfterFunc still to run when c is
	// done.
	afters map[*afterFunc]struct{}
}

// afterFunc is a function registered by AfterFunc.
type afterFunc struct{ f func() }

//go:norace
func (c *cancelCtx) Done() <-chan struct{} { return c.done }

//go:norace
func (c *cancelCtx) Err() error {
	// Whether the context is cancelled is whether done is closed: a
	// visible poll of done, so that the check is ordered with the close
	// (err is set in the close's own transition).
	closed(c.done)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

//go:norace
func (c *cancelCtx) Deadline() (time.Time, bool) {
	if c.hasDL {
		return c.deadline, true
	}
	return c.Context.Deadline()
}

//go:norace
func (c *cancelCtx) Value(key any) any {
	if key == &cancelCtxKey {
		return c
	}
	return c.Context.Value(key)
}

//go:norace
func (c *cancelCtx) String() string {
	if c.hasDL {
		return "context.WithDeadline(" + c.deadline.String() + ")"
	}
	return "context.WithCancel"
}

// cancel closes c.done, cancels c's children and, if removeFromParent,
// removes c from its parent's children.
//
//go:norace
func (c *cancelCtx) cancel(removeFromParent bool, err, cause error) {
	if cause == nil {
		cause = err
	}
	// Which of concurrent cancels claims c (and so whose cause and error
	// c keeps) is decided in the transition of a step the model sees, a
	// poll of c.mark, dependent on every other cancel's: the search runs
	// each order, as each may happen in Go. (Decided by the state below
	// alone, the claims were invisible, and the search ran one order.)
	rt.Select([]rt.Case{rt.CheckedChan(c.mark).RecvCase(nil, nil), rt.Default()})
	c.mu.Lock()
	if c.err != nil || c.cause != nil {
		c.mu.Unlock()
		return
	}
	// Claimed: a concurrent cancel returns above. err is set right after
	// the close, in the same transition, so that no goroutine sees Done
	// closed with a nil Err.
	c.cause = cause
	children := c.children
	c.children = nil
	t := c.timer
	c.timer = nil
	c.mu.Unlock()
	rt.CheckedChan(c.done).Close()
	c.mu.Lock()
	c.err = err
	afters := c.afters
	c.afters = nil
	c.mu.Unlock()
	// In the close's own transition, as context runs each in a goroutine
	// of its own once the context is done.
	for a := range afters {
		rt.Go(a.f)
	}
	for child := range children {
		child.cancel(false, err, cause)
	}
	if t != nil {
		t.Stop()
	}
	if removeFromParent {
		if p, ok := parentCancelCtx(c.Context); ok {
			p.mu.Lock()
			delete(p.children, c)
			p.mu.Unlock()
		}
	}
}

// parentCancelCtx returns the nearest checked cancelable ancestor of parent.
//
//go:norace
func parentCancelCtx(parent context.Context) (*cancelCtx, bool) {
	p, ok := parent.Value(&cancelCtxKey).(*cancelCtx)
	return p, ok
}

// newCancelCtx makes a child of parent and ties it to its parent's
// cancellation.
//
//go:norace
func newCancelCtx(parent context.Context) *cancelCtx {
	c := &cancelCtx{Context: parent, done: make(chan struct{}), mark: make(chan struct{})}
	if p, ok := parentCancelCtx(parent); ok {
		p.mu.Lock()
		err, cause := p.err, p.cause
		if err == nil && cause == nil {
			if p.children == nil {
				p.children = make(map[*cancelCtx]struct{})
			}
			p.children[c] = struct{}{}
		}
		p.mu.Unlock()
		if cause != nil {
			if err == nil {
				err = context.Canceled
			}
			c.cancel(false, err, cause)
		}
		return c
	}
	if parent.Done() == nil {
		return c
	}
	if err := parent.Err(); err != nil {
		c.cancel(false, err, context.Cause(parent))
	}
	// A parent cancelled by code outside the checked program is not seen.
	return c
}

// withoutCancel is context.WithoutCancel under a check: its parent's values,
// but not its cancellation.
type withoutCancel struct{ parent context.Context }

//go:norace
func (withoutCancel) Deadline() (time.Time, bool) { return time.Time{}, false }

//go:norace
func (withoutCancel) Done() <-chan struct{} { return nil }

//go:norace
func (withoutCancel) Err() error { return nil }

//go:norace
func (c withoutCancel) Value(key any) any {
	if key == &cancelCtxKey {
		return nil
	}
	return c.parent.Value(key)
}

//go:norace
func (withoutCancel) String() string { return "context.WithoutCancel" }
