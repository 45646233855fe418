package runtime_test

import (
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/lang"
	"github.com/stdbg/stdbg/sthread/runtime"
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
