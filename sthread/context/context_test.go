package context_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/sthread"
	scontext "github.com/stdbg/stdbg/sthread/context"
	"github.com/stdbg/stdbg/sthread/lang"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// ctxAPI is the part of package context (and of go and channels) that the
// emulation faithfulness scenarios use: the real package's, or sthread's.
type ctxAPI struct {
	withCancel         func(context.Context) (context.Context, context.CancelFunc)
	withCancelCause    func(context.Context) (context.Context, context.CancelCauseFunc)
	withTimeout        func(context.Context, time.Duration) (context.Context, context.CancelFunc)
	withTimeoutCause   func(context.Context, time.Duration, error) (context.Context, context.CancelFunc)
	withDeadlineCause  func(context.Context, time.Time, error) (context.Context, context.CancelFunc)
	withoutCancel      func(context.Context) context.Context
	cause              func(context.Context) error
	afterFunc          func(context.Context, func()) func() bool
	now                func() time.Time
	wait               func(<-chan struct{})
	signal, signalled  func() // signalled waits for one signal
	resetSignalChannel func()
}

func realContext() *ctxAPI {
	var ch chan struct{}
	return &ctxAPI{
		withCancel: context.WithCancel, withCancelCause: context.WithCancelCause,
		withTimeout: context.WithTimeout, withTimeoutCause: context.WithTimeoutCause,
		withDeadlineCause: context.WithDeadlineCause, withoutCancel: context.WithoutCancel,
		cause: context.Cause, afterFunc: context.AfterFunc, now: time.Now,
		wait:               func(c <-chan struct{}) { <-c },
		signal:             func() { ch <- struct{}{} },
		signalled:          func() { <-ch },
		resetSignalChannel: func() { ch = make(chan struct{}, 4) },
	}
}

func checkedContext() *ctxAPI {
	var ch chan struct{}
	return &ctxAPI{
		withCancel: scontext.WithCancel, withCancelCause: scontext.WithCancelCause,
		withTimeout: scontext.WithTimeout, withTimeoutCause: scontext.WithTimeoutCause,
		withDeadlineCause: scontext.WithDeadlineCause, withoutCancel: scontext.WithoutCancel,
		cause: scontext.Cause, afterFunc: scontext.AfterFunc, now: stime.Now,
		wait:               func(c <-chan struct{}) { lang.ChanRecv(c) },
		signal:             func() { lang.ChanSend(ch, struct{}{}) },
		signalled:          func() { lang.ChanRecv(ch) },
		resetSignalChannel: func() { ch = make(chan struct{}, 4) },
	}
}

var (
	errCause   = errors.New("the cause")
	errTimeout = errors.New("too slow")
	ctxKey     = new(int)
)

// contextScenarios are cases of package context's documentation: each
// writes what it observes, which must be the same with the real package
// outside a check and with sthread's in every execution of one.
var contextScenarios = []struct {
	name string
	run  func(api *ctxAPI, say func(string, ...any))
}{
	{"cancel with a cause", func(api *ctxAPI, say func(string, ...any)) {
		ctx, cancel := api.withCancelCause(context.Background())
		say("before: err %v cause %v", ctx.Err(), api.cause(ctx))
		cancel(errCause)
		cancel(errors.New("a later cause"))
		say("after: err %v cause %v", ctx.Err(), api.cause(ctx))
	}},
	{"cancel without a cause", func(api *ctxAPI, say func(string, ...any)) {
		ctx, cancel := api.withCancelCause(context.Background())
		cancel(nil)
		say("err %v cause %v", ctx.Err(), api.cause(ctx))
	}},
	{"the cause reaches the children", func(api *ctxAPI, say func(string, ...any)) {
		parent, cancel := api.withCancelCause(context.Background())
		child, stop := api.withCancel(parent)
		defer stop()
		cancel(errCause)
		api.wait(child.Done())
		say("child: err %v cause %v", child.Err(), api.cause(child))
		late, stop2 := api.withCancel(parent)
		defer stop2()
		say("child made after: err %v cause %v", late.Err(), api.cause(late))
	}},
	{"a plain cancel's cause is its error", func(api *ctxAPI, say func(string, ...any)) {
		ctx, cancel := api.withCancel(context.Background())
		cancel()
		say("err %v cause %v; background's cause %v", ctx.Err(), api.cause(ctx), api.cause(context.Background()))
	}},
	{"a timeout with a cause", func(api *ctxAPI, say func(string, ...any)) {
		ctx, cancel := api.withTimeoutCause(context.Background(), time.Millisecond, errTimeout)
		defer cancel()
		api.wait(ctx.Done())
		say("err %v cause %v", ctx.Err(), api.cause(ctx))
	}},
	{"a timeout without a cause", func(api *ctxAPI, say func(string, ...any)) {
		ctx, cancel := api.withTimeout(context.Background(), time.Millisecond)
		defer cancel()
		api.wait(ctx.Done())
		say("err %v cause %v", ctx.Err(), api.cause(ctx))
	}},
	{"cancelled before the timeout", func(api *ctxAPI, say func(string, ...any)) {
		ctx, cancel := api.withTimeoutCause(context.Background(), time.Hour, errTimeout)
		cancel()
		say("err %v cause %v", ctx.Err(), api.cause(ctx))
	}},
	{"a deadline already past", func(api *ctxAPI, say func(string, ...any)) {
		ctx, cancel := api.withDeadlineCause(context.Background(), api.now().Add(-time.Second), errTimeout)
		defer cancel()
		say("err %v cause %v", ctx.Err(), api.cause(ctx))
	}},
	{"AfterFunc runs once the context is done", func(api *ctxAPI, say func(string, ...any)) {
		api.resetSignalChannel()
		ctx, cancel := api.withCancel(context.Background())
		stop := api.afterFunc(ctx, api.signal)
		cancel()
		api.signalled()
		say("ran; stop after it ran: %v", stop())
	}},
	{"AfterFunc stopped before the cancel", func(api *ctxAPI, say func(string, ...any)) {
		ctx, cancel := api.withCancel(context.Background())
		stop := api.afterFunc(ctx, func() { panic("an AfterFunc that was stopped ran") })
		say("stop: %v, again: %v", stop(), stop())
		cancel()
	}},
	{"AfterFunc on a done context", func(api *ctxAPI, say func(string, ...any)) {
		api.resetSignalChannel()
		ctx, cancel := api.withCancelCause(context.Background())
		cancel(errCause)
		api.afterFunc(ctx, api.signal)
		api.signalled()
		say("ran")
	}},
	{"WithoutCancel keeps the values, not the cancellation", func(api *ctxAPI, say func(string, ...any)) {
		parent, cancel := api.withCancelCause(context.WithValue(context.Background(), ctxKey, "v"))
		cancel(errCause)
		ctx := api.withoutCancel(parent)
		_, hasDL := ctx.Deadline()
		say("err %v cause %v done %v deadline %v value %v", ctx.Err(), api.cause(ctx), ctx.Done() == nil, hasDL, ctx.Value(ctxKey))
		child, stop := api.withCancel(ctx)
		defer stop()
		say("child: err %v cause %v", child.Err(), api.cause(child))
	}},
}

// The emulation of package context under a check is held to the real
// package's observable behaviour on the cases its documentation gives.
func TestContextFaithful(t *testing.T) {
	for _, sc := range contextScenarios {
		t.Run(sc.name, func(t *testing.T) {
			var want []string
			sc.run(realContext(), func(f string, args ...any) { want = append(want, fmt.Sprintf(f, args...)) })
			var got []string
			executions := 0
			res, err := sthread.Explore(func() {
				executions++
				got = got[:0]
				sc.run(checkedContext(), func(f string, args ...any) { got = append(got, fmt.Sprintf(f, args...)) })
				sthread.Assert(slices.Equal(got, want), strings.Join(got, "; "))
			}, sthread.All())
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range res.Bugs {
				t.Errorf("under a check: %s\nwant: %s", b.Message, strings.Join(want, "; "))
			}
			if !res.Complete || executions == 0 {
				t.Errorf("the check explored %d executions, complete %v", executions, res.Complete)
			}
		})
	}
}

// Two goroutines cancel one context, each with its own cause: either may
// come first, and the context's cause is the first one's, as in Go. The
// search (DPOR, and every schedule) must find the order in which the
// second goroutine's cause wins: which canceller claims the context is
// decided by an operation the model sees, not by state it does not.
func TestConcurrentCancelsEachWin(t *testing.T) {
	errA, errB := errors.New("A"), errors.New("B")
	for _, tc := range []struct {
		name string
		opts []sthread.Option
	}{{"dpor", nil}, {"every schedule", []sthread.Option{sthread.NoReduction()}}} {
		t.Run(tc.name, func(t *testing.T) {
			causes := map[string]bool{}
			res, err := sthread.Explore(func() {
				ctx, cancel := scontext.WithCancelCause(context.Background())
				done := sthread.MakeChan[int](2)
				sthread.Go(func() { cancel(errA); done.Send(1) })
				sthread.Go(func() { cancel(errB); done.Send(1) })
				done.Recv()
				done.Recv()
				causes[scontext.Cause(ctx).Error()] = true
			}, append(tc.opts, sthread.All(), sthread.NoSave())...)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete || len(res.Bugs) > 0 {
				t.Fatalf("complete %v, bugs %v", res.Complete, res.Bugs)
			}
			if !causes["A"] || !causes["B"] {
				t.Errorf("causes seen %v in %d executions, want A and B", causes, res.Stats.Executions)
			}
		})
	}
}
