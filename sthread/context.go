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
	// afters are the functions of ContextAfterFunc still to run when c is
	// done.
	afters map[*afterFunc]struct{}
}

// afterFunc is a function registered by ContextAfterFunc.
type afterFunc struct{ f func() }

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
	afters := c.afters
	c.afters = nil
	c.mu.Unlock()
	// In the close's own transition, as context runs each in a goroutine
	// of its own once the context is done.
	for a := range afters {
		Go(a.f)
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
	return withDeadline(parent, d, nil)
}

// ContextWithDeadlineCause is context.WithDeadlineCause, on the virtual
// clock under Check: when the deadline passes, the context's cause is
// cause.
//
//go:norace
func ContextWithDeadlineCause(parent context.Context, d time.Time, cause error) (context.Context, context.CancelFunc) {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if _, ok := checkedThread(); !ok {
		return context.WithDeadlineCause(parent, d, cause)
	}
	return withDeadline(parent, d, cause)
}

// withDeadline makes a context under Check that is done at d (with cause,
// if not nil, as its cause then).
//
//go:norace
func withDeadline(parent context.Context, d time.Time, cause error) (context.Context, context.CancelFunc) {
	if cur, ok := parent.Deadline(); ok && cur.Before(d) {
		return ContextWithCancel(parent)
	}
	c := newCancelCtx(parent)
	c.deadline, c.hasDL = d, true
	dur := Until(d)
	if dur <= 0 {
		c.cancel(true, context.DeadlineExceeded, cause)
		return c, func() { c.cancel(false, context.Canceled, nil) }
	}
	c.mu.Lock()
	live := c.err == nil && c.cause == nil
	c.mu.Unlock()
	if live {
		t := AfterFunc(dur, func() { c.cancel(true, context.DeadlineExceeded, cause) })
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

// ContextWithTimeoutCause is context.WithTimeoutCause, on the virtual
// clock under Check.
//
//go:norace
func ContextWithTimeoutCause(parent context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	if _, ok := checkedThread(); !ok {
		return context.WithTimeoutCause(parent, d, cause)
	}
	return ContextWithDeadlineCause(parent, Now().Add(d), cause)
}

// ContextCause is context.Cause: the cause with which the nearest
// cancelable ancestor of c (c included) was cancelled, its Err when it was
// cancelled without a cause, nil while it is not cancelled. Whether it is
// cancelled is a visible poll of its Done channel, ordered with the close
// that cancels it.
//
//go:norace
func ContextCause(c context.Context) error {
	if _, ok := checkedThread(); ok {
		if cc, ok := parentCancelCtx(c); ok {
			if SelectOf(true, RecvCaseOf(cc.done)) != 0 {
				return nil
			}
			cc.mu.Lock()
			defer cc.mu.Unlock()
			return cc.cause
		}
	}
	return context.Cause(c)
}

// ContextAfterFunc is context.AfterFunc: f runs in a goroutine of its own
// once ctx is done (at once if it is done already); stop keeps it from
// running, and reports whether it did (false once f was started or stop
// had been called).
//
//go:norace
func ContextAfterFunc(ctx context.Context, f func()) (stop func() bool) {
	cc, ok := parentCancelCtx(ctx)
	if _, checked := checkedThread(); !checked || !ok {
		if checked && ctx.Done() == nil {
			// Never done: f never runs.
			stopped := false
			return func() bool {
				was := !stopped
				stopped = true
				return was
			}
		}
		return context.AfterFunc(ctx, f)
	}
	a := &afterFunc{f: f}
	// The poll orders the registration with the close that cancels cc:
	// the close's transition takes the functions registered before it.
	if SelectOf(true, RecvCaseOf(cc.done)) == 0 {
		Go(f)
	} else {
		cc.mu.Lock()
		if cc.afters == nil {
			cc.afters = make(map[*afterFunc]struct{})
		}
		cc.afters[a] = struct{}{}
		cc.mu.Unlock()
	}
	return func() bool {
		if SelectOf(true, RecvCaseOf(cc.done)) == 0 {
			return false
		}
		cc.mu.Lock()
		defer cc.mu.Unlock()
		_, waiting := cc.afters[a]
		delete(cc.afters, a)
		return waiting
	}
}

// withoutCancel is context.WithoutCancel under Check: its parent's values,
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

// ContextWithoutCancel is context.WithoutCancel.
//
//go:norace
func ContextWithoutCancel(parent context.Context) context.Context {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if _, ok := checkedThread(); !ok {
		return context.WithoutCancel(parent)
	}
	return withoutCancel{parent}
}
