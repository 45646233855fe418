package rt

import (
	"reflect"
	"strings"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// What package testing refuses to a test's goroutines. Once a test or a
// subtest (t.Run) is over, go test panics when a goroutine calls a method
// of its t that fails ("Fail in goroutine after TestX/sub has completed"),
// or that logs once no ancestor of the test runs ("Log in goroutine after
// TestX has completed": the line goes to the closest that runs, and every
// test is a subtest of go test's own, which runs while tests do: alone, as
// stdbg and go test -run explore a test, it panics); and a goroutine that
// does so in some runs only does so in the schedules where the test ended
// first. So under a check each test of the execution is known (its
// *testing.T, its parent), its end is a scheduling point (TestEnds: a
// Write of the checked test's key), and so is every such call by a
// goroutine other than the test's own (TestCall: a Read of the key): the
// two are dependent, and the search runs both orders.

// testState is a test of the execution: the checked test, or one of its
// subtests.
type testState struct {
	t      any // its *testing.T
	parent int // the index of its parent in Execution.tests, -1 for the checked test
	done   bool
	name   string
}

// TestBegins makes t, whose Name is name, the checked test of the calling
// goroutine's execution (plain Go's test functions, which lang.CheckTest
// runs). It does nothing outside a check.
//
//go:norace
func TestBegins(t any, name string) {
	th, ok := Current()
	if !ok {
		return
	}
	ex := th.ex
	ex.tests = append(ex.tests[:0], testState{t: t, parent: -1, name: name})
	ex.testKey = uint64(uintptr(ifaceData(t)))
}

// SubtestBegins records sub, whose Name is name, as a subtest of parent
// in the calling goroutine's execution (lang.Run).
//
//go:norace
func SubtestBegins(parent, sub any, name string) {
	th, ok := Current()
	if !ok {
		return
	}
	ex := th.ex
	if p := ex.testIndex(parent); p >= 0 {
		ex.tests = append(ex.tests, testState{t: sub, parent: p, name: ex.subtestName(p, name)})
	}
}

// subtestName returns the name of a subtest of test p that package
// testing named name, as it names it in a process of its own: the search
// runs the subtest once per execution, and package testing tells the
// later ones apart ("TestX/sub#01"), as it does two subtests of one name
// in one run.
//
//go:norace
func (ex *Execution) subtestName(p int, name string) string {
	base := name
	if i := strings.LastIndexByte(name, '#'); i > 0 && i+1 < len(name) && strings.Trim(name[i+1:], "0123456789") == "" {
		base = name[:i]
	}
	n := 0
	for _, ts := range ex.tests {
		if ts.parent == p && (ts.name == base || strings.HasPrefix(ts.name, base+"#")) {
			n++
		}
	}
	if n == 0 {
		return base
	}
	return base + "#" + string(rune('0'+n/10%10)) + itoa(n%10)
}

// TestEnds is the end of test t (the checked test or a subtest), its
// function f and its cleanups done: a scheduling point, shown at f's first
// line, after which its goroutines may no longer use it. It does nothing
// outside a check.
//
//go:norace
func TestEnds(t any, f any) {
	th, ok := Current()
	if !ok {
		return
	}
	ex := th.ex
	i := ex.testIndex(t)
	if i < 0 {
		return
	}
	pcs := []uintptr{funcLine(reflect.ValueOf(f).Pointer())}
	th.PointAt(syncmodel.Op{Kind: syncmodel.Write, API: syncmodel.APITestEnd, Obj: ex.testKey, Arg: 1}, pcs)
	ex.tests[i].done = true
}

// TestCall is the call of method (Log, Errorf, Skip, ...) of test t by
// the calling goroutine: a scheduling point for a goroutine other than the
// test's own, then, if package testing would panic, the misuse, reported
// with go test's words.
//
//go:norace
func TestCall(t interface{ Name() string }, method string) {
	if !hooked.Load() {
		return
	}
	th, ok := EnterFree()
	if !ok {
		return
	}
	ex := th.ex
	i := ex.testIndex(t)
	if th.tid != 1 && i >= 0 {
		var buf [FramesCap]uintptr
		th.PointAt(syncmodel.Op{Kind: syncmodel.Read, API: syncmodel.APITestCall, Obj: ex.testKey, Arg: 1}, th.Capture(buf[:]))
	}
	what, name := ex.lateTestCall(i, method)
	if i < 0 && th.tid != 1 && ex.over {
		// A test checked with sthread.Check: its end is the checked
		// function's return.
		what, name = testCallKind(method), t.Name()
	}
	if what == "" {
		return
	}
	when := ""
	if what == "Log" {
		// Every test is a subtest of go test's own, which takes the
		// line while a test still runs.
		when = " once no test runs"
	}
	th.failWith(wire.FailMisuse, "t."+method+" called by goroutine "+itoa(th.tid)+" after "+name+
		" returned: go test panics ("+what+" in goroutine after "+name+" has completed)"+when, "t."+method)
}

// lateTestCall says whether package testing panics for the call of
// method of test i once what has ended: "Log" or "Fail" and the name of
// the test the panic names, or "" if it does not.
//
//go:norace
func (ex *Execution) lateTestCall(i int, method string) (what, name string) {
	if i < 0 {
		return "", ""
	}
	allDone := true
	for j := i; j >= 0; j = ex.tests[j].parent {
		allDone = allDone && ex.tests[j].done
	}
	switch testCallKind(method) {
	case "Log":
		if allDone {
			return "Log", ex.tests[i].name
		}
	case "Fail":
		if allDone && method != "Fail" && method != "FailNow" {
			// t.Error and t.Fatal log first.
			return "Log", ex.tests[i].name
		}
		// Fail marks the parents failed first, from the checked test
		// down: the first that has ended panics.
		var chain []int
		for j := i; j >= 0; j = ex.tests[j].parent {
			chain = append(chain, j)
		}
		for k := len(chain) - 1; k >= 0; k-- {
			if ts := ex.tests[chain[k]]; ts.done {
				return "Fail", ts.name
			}
		}
	}
	return "", ""
}

// testCallKind sorts a method of a test's t by what package testing does
// once the test is over: "Log" (it logs: Log, Logf, Skip, Skipf), "Fail"
// (it fails: Error, Errorf, Fatal, Fatalf, Fail, FailNow), "" (SkipNow).
//
//go:norace
func testCallKind(method string) string {
	switch {
	case strings.HasPrefix(method, "Error"), strings.HasPrefix(method, "Fatal"), strings.HasPrefix(method, "Fail"):
		return "Fail"
	case method == "SkipNow":
		return ""
	}
	return "Log"
}

// testIndex returns the index of test t in ex.tests, -1 if it is not one.
//
//go:norace
func (ex *Execution) testIndex(t any) int {
	p := ifaceData(t)
	for i := range ex.tests {
		if ifaceData(ex.tests[i].t) == p {
			return i
		}
	}
	return -1
}

// ifaceData returns the pointer an interface holding a pointer holds (a
// *testing.T, whatever interface it is seen through).
//
//go:norace
func ifaceData(x any) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&x))[1]
}

// itoa is strconv.Itoa for a thread id.
//
//go:norace
func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	return string(b[i:])
}
