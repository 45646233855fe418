package runtime_test

import (
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/lang"
	"github.com/stdbg/stdbg/sthread/runtime"
	ssync "github.com/stdbg/stdbg/sthread/sync"
)

// stack returns the functions of the calling goroutine's frames as the
// program sees them through Callers (from its caller on), and what Caller
// says of each, one by one.
func stack() (funcs []string, files []string) {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	frames := goruntime.CallersFrames(pcs[:n])
	for {
		fr, more := frames.Next()
		funcs = append(funcs, fr.Function)
		if !more {
			break
		}
	}
	for i := 1; ; i++ {
		_, file, line, ok := runtime.Caller(i)
		if !ok {
			break
		}
		files = append(files, file[strings.LastIndexByte(file, '/')+1:]+":"+itoa(line))
	}
	return funcs, files
}

func itoa(n int) string {
	var b []byte
	for ; n > 0 || len(b) == 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// The stack the program sees holds none of stdbg's frames: a checked
// goroutine's ends in runtime.goexit, as a goroutine's does in Go (testify
// prints that line too), and a test's body, run by lang.CheckTest, is
// followed by package testing's tRunner, as the test function is under go
// test. Before, testify's "Error Trace" listed stdbg's frames (by base
// name: test.go:58, thread.go:365, ...) where go test lists none.
func TestCallersHideStdbg(t *testing.T) {
	type seen struct{ funcs, files []string }
	var goroutine, body seen
	res, err := sthread.Explore(func() {
		done := make(chan struct{})
		sthread.Go(func() {
			goroutine.funcs, goroutine.files = stack()
			lang.ChanClose(done)
		})
		lang.ChanRecv(done)
	})
	if err != nil || len(res.Bugs) > 0 {
		t.Fatal(err, res.Bugs)
	}
	lang.CheckTest(t, func() { body.funcs, body.files = stack() })
	for _, c := range []struct {
		name string
		s    seen
		last []string
	}{
		{"a checked goroutine", goroutine, []string{"runtime.goexit"}},
		{"a test's body", body, []string{"testing.tRunner", "runtime.goexit"}},
	} {
		if len(c.s.funcs) != 1+len(c.last) || !strings.Contains(c.s.funcs[0], "TestCallersHideStdbg.func") ||
			strings.Join(c.s.funcs[1:], " ") != strings.Join(c.last, " ") {
			t.Errorf("%s: the program sees %q; want its function, then %q", c.name, c.s.funcs, c.last)
		}
		if len(c.s.files) != len(c.s.funcs) || !strings.HasPrefix(c.s.files[0], "callers_test.go:") {
			t.Errorf("%s: Caller says %q, for the frames %q", c.name, c.s.files, c.s.funcs)
		}
	}
}

// The stack of a failing goroutine in a report holds the program's frames
// only: a failure in a callback that stdbg's Once.Do calls shows the
// callback and the function that called Do, not Do's frames between them,
// as a failure in a test's body showed lang.CheckTest's frame below it
// (x/sync's TestWeightedAcquire: "#1 .../sthread/lang.CheckTest.func1").
func TestFailureStackHidesStdbg(t *testing.T) {
	var once ssync.Once
	res, err := sthread.Explore(func() {
		once.Do(func() { sthread.Assert(false, "in Do's function") })
	})
	if err != nil || len(res.Bugs) != 1 {
		t.Fatal(err, res.Bugs)
	}
	report := res.Bugs[0].String()
	_, stack, ok := strings.Cut(report, "stack of the failing thread:")
	if !ok {
		t.Fatalf("no stack in:\n%s", report)
	}
	if strings.Contains(stack, "/sthread/sync/") || strings.Contains(stack, "/sthread/internal/") || strings.Contains(stack, "/sthread/lang/") {
		t.Errorf("stdbg's frames in the failing thread's stack:\n%s", report)
	}
	if strings.Count(stack, "TestFailureStackHidesStdbg.func") < 2 {
		t.Errorf("the callback and its caller are not both in the stack:\n%s", report)
	}
}

// Every goroutine's traceback, as a checked goroutine writes it with
// Stack, holds none of stdbg's frames nor goroutines: not the runtime's
// (the trampoline, the workers, the watchdog), nor the search's that
// drives the check (its executor, its strategy). Its own stack comes first.
func TestStackHidesStdbg(t *testing.T) {
	var dump string
	res, err := sthread.Explore(func() {
		done := make(chan struct{})
		sthread.Go(func() {
			buf := make([]byte, 1<<20)
			dump = string(buf[:runtime.Stack(buf, true)])
			lang.ChanClose(done)
		})
		lang.ChanRecv(done)
	})
	if err != nil || len(res.Bugs) > 0 {
		t.Fatal(err, res.Bugs)
	}
	if !strings.HasPrefix(dump, "goroutine ") || !strings.Contains(strings.SplitN(dump, "\n", 3)[1], "TestStackHidesStdbg.func1.1(") {
		t.Errorf("the calling goroutine's stack is not first:\n%s", dump)
	}
	for _, stdbg := range []string{"/sthread/internal/", "/engine/", "sthread.Explore", "/sthread/lang.", "runtime.goexit"} {
		if strings.Contains(dump, stdbg) {
			t.Errorf("%q in the program's dump of every goroutine:\n%s", stdbg, dump)
		}
	}
}
