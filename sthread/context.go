package sthread

import (
	"context"
	"sync"
	"time"
)

// Contexts under Check. ContextWithCancel, ContextWithTimeout and
// ContextWithDeadline behave as context's functions do — a child is
// cancelled with its parent, Done is closed before Err returns non-nil,
// Err returns context.Canceled or context.DeadlineExceeded — with Done a
// channel of the checked program and deadlines on the virtual clock, so
// that a cancellation or a deadline racing with other work is explored both
// ways. Outside Check they are context's functions.

// cancelCtxKey is the key by which a context finds its nearest checked
// cancelable ancestor, as the context package does for its own.
var cancelCtxKey int

// cancelCtx is a cancelable context under Check.
type cancelCtx struct {
	context.Context // the parent

	mu       sync.Mutex // never held across a scheduling point
	done     chan struct{}
	err      error
	cause    error
	children map[*cancelCtx]struct{}
	deadline time.Time
	hasDL    bool
	timer    *Timer
}

//go:norace
func (c *cancelCtx) Done() <-chan struct{} { return c.done }

//go:norace
func (c *cancelCtx) Err() error {
	// Whether the context is cancelled is whether done is closed: a
	// visible poll of done, so that the check is ordered with the close
	// (err is set in the close's own transition).
	SelectOf(true, RecvCaseOf(c.done))
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
	ChanClose(c.done)
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
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
	c := &cancelCtx{Context: parent, done: make(chan struct{})}
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

// ContextWithCancel is context.WithCancel.
//
//go:norace
func ContextWithCancel(parent context.Context) (context.Context, context.CancelFunc) {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if _, ok := checkedThread(); !ok {
		return context.WithCancel(parent)
	}
	c := newCancelCtx(parent)
	return c, func() { c.cancel(true, context.Canceled, nil) }
}

// ContextWithCancelCause is context.WithCancelCause.
//
//go:norace
func ContextWithCancelCause(parent context.Context) (context.Context, context.CancelCauseFunc) {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if _, ok := checkedThread(); !ok {
		return context.WithCancelCause(parent)
	}
	c := newCancelCtx(parent)
	return c, func(cause error) { c.cancel(true, context.Canceled, cause) }
}

// ContextWithDeadline is context.WithDeadline, on the virtual clock under
// Check.
//
//go:norace
func ContextWithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if _, ok := checkedThread(); !ok {
		return context.WithDeadline(parent, d)
	}
	if cur, ok := parent.Deadline(); ok && cur.Before(d) {
		return ContextWithCancel(parent)
	}
	c := newCancelCtx(parent)
	c.deadline, c.hasDL = d, true
	dur := Until(d)
	if dur <= 0 {
		c.cancel(true, context.DeadlineExceeded, nil)
		return c, func() { c.cancel(false, context.Canceled, nil) }
	}
	c.mu.Lock()
	live := c.err == nil && c.cause == nil
	c.mu.Unlock()
	if live {
		t := AfterFunc(dur, func() { c.cancel(true, context.DeadlineExceeded, nil) })
		c.mu.Lock()
		c.timer = t
		c.mu.Unlock()
	}
	return c, func() { c.cancel(true, context.Canceled, nil) }
}

// ContextWithTimeout is context.WithTimeout, on the virtual clock under
// Check.
//
//go:norace
func ContextWithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := checkedThread(); !ok {
		return context.WithTimeout(parent, d)
	}
	return ContextWithDeadline(parent, Now().Add(d))
}
