// Package context is the part of package context of the standard library
// that makes contexts done, for programs that stdbg checks: WithCancel,
// WithCancelCause, WithTimeout, WithTimeoutCause, WithDeadline,
// WithDeadlineCause, WithoutCancel, Cause and AfterFunc, with the standard
// library's names. Under a check (sthread.Check, or stdbg find) they behave
// as context's functions do — a child is cancelled with its parent, Done is
// closed before Err returns non-nil, Err returns context.Canceled or
// context.DeadlineExceeded — with Done a channel of the checked program and
// deadlines on the virtual clock of package sthread/time, so that a
// cancellation or a deadline racing with other work is explored both ways.
// Outside a check they are context's functions.
//
// The contexts they take and return are the standard library's
// context.Context; stdbg's instrumentation of plain Go (package goinstr)
// rewrites the uses of these functions into uses of this package's, and
// the rest of package context (Context, Background, WithValue, ...) is the
// standard library's.
package context

import (
	"context"
	"time"

	"github.com/stdbg/stdbg/sthread/internal/rt"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// WithCancel is context.WithCancel.
//
//go:norace
func WithCancel(parent context.Context) (context.Context, context.CancelFunc) {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if _, ok := rt.Current(); !ok {
		return context.WithCancel(parent)
	}
	c := newCancelCtx(parent)
	return c, func() { c.cancel(true, context.Canceled, nil) }
}

// WithCancelCause is context.WithCancelCause.
//
//go:norace
func WithCancelCause(parent context.Context) (context.Context, context.CancelCauseFunc) {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if _, ok := rt.Current(); !ok {
		return context.WithCancelCause(parent)
	}
	c := newCancelCtx(parent)
	return c, func(cause error) { c.cancel(true, context.Canceled, cause) }
}

// WithDeadline is context.WithDeadline, on the virtual clock under
// Check.
//
//go:norace
func WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if _, ok := rt.Current(); !ok {
		return context.WithDeadline(parent, d)
	}
	return withDeadline(parent, d, stime.Until(d), nil)
}

// WithDeadlineCause is context.WithDeadlineCause, on the virtual
// clock under a check: when the deadline passes, the context's cause is
// cause.
//
//go:norace
func WithDeadlineCause(parent context.Context, d time.Time, cause error) (context.Context, context.CancelFunc) {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if _, ok := rt.Current(); !ok {
		return context.WithDeadlineCause(parent, d, cause)
	}
	return withDeadline(parent, d, stime.Until(d), cause)
}

// withDeadline makes a context under a check that is done at d, dur from
// now (with cause, if not nil, as its cause then). The caller reads the
// clock once: for WithTimeout, dur is its timeout, so that a context and a
// sleep of the same duration made in one instant end in one instant.
//
//go:norace
func withDeadline(parent context.Context, d time.Time, dur time.Duration, cause error) (context.Context, context.CancelFunc) {
	if cur, ok := parent.Deadline(); ok && cur.Before(d) {
		return WithCancel(parent)
	}
	c := newCancelCtx(parent)
	c.deadline, c.hasDL = d, true
	if dur <= 0 {
		c.cancel(true, context.DeadlineExceeded, cause)
		return c, func() { c.cancel(false, context.Canceled, nil) }
	}
	c.mu.Lock()
	live := c.err == nil && c.cause == nil
	c.mu.Unlock()
	if live {
		t := stime.AfterFunc(dur, func() { c.cancel(true, context.DeadlineExceeded, cause) })
		c.mu.Lock()
		c.timer = t
		c.mu.Unlock()
	}
	return c, func() { c.cancel(true, context.Canceled, nil) }
}

// WithTimeout is context.WithTimeout, on the virtual clock under
// Check.
//
//go:norace
func WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := rt.Current(); !ok {
		return context.WithTimeout(parent, d)
	}
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	return withDeadline(parent, stime.Now().Add(d), d, nil)
}

// WithTimeoutCause is context.WithTimeoutCause, on the virtual
// clock under a check.
//
//go:norace
func WithTimeoutCause(parent context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	if _, ok := rt.Current(); !ok {
		return context.WithTimeoutCause(parent, d, cause)
	}
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	return withDeadline(parent, stime.Now().Add(d), d, cause)
}

// Cause is context.Cause: the cause with which the nearest
// cancelable ancestor of c (c included) was cancelled, its Err when it was
// cancelled without a cause, nil while it is not cancelled. Whether it is
// cancelled is a visible poll of its Done channel, ordered with the close
// that cancels it.
//
//go:norace
func Cause(c context.Context) error {
	if _, ok := rt.Current(); ok {
		if cc, ok := parentCancelCtx(c); ok {
			if !closed(cc.done) {
				return nil
			}
			cc.mu.Lock()
			defer cc.mu.Unlock()
			return cc.cause
		}
	}
	return context.Cause(c)
}

// AfterFunc is context.AfterFunc: f runs in a goroutine of its own
// once ctx is done (at once if it is done already); stop keeps it from
// running, and reports whether it did (false once f was started or stop
// had been called).
//
//go:norace
func AfterFunc(ctx context.Context, f func()) (stop func() bool) {
	cc, ok := parentCancelCtx(ctx)
	if _, checked := rt.Current(); !checked || !ok {
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
	if closed(cc.done) {
		rt.Go(f)
	} else {
		cc.mu.Lock()
		if cc.afters == nil {
			cc.afters = make(map[*afterFunc]struct{})
		}
		cc.afters[a] = struct{}{}
		cc.mu.Unlock()
	}
	return func() bool {
		if closed(cc.done) {
			return false
		}
		cc.mu.Lock()
		defer cc.mu.Unlock()
		_, waiting := cc.afters[a]
		delete(cc.afters, a)
		return waiting
	}
}

// WithoutCancel is context.WithoutCancel.
//
//go:norace
func WithoutCancel(parent context.Context) context.Context {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if _, ok := rt.Current(); !ok {
		return context.WithoutCancel(parent)
	}
	return withoutCancel{parent}
}
