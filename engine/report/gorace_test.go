package report

import (
	"os"
	"path/filepath"
	"testing"
)

// A race report of an instrumented Go test, as the target writes it
// (threads named by their numbers), reads in the program's terms: its
// frames only, paths relative to the module, each thread with the go
// statement that started it, closures named as in the test as written.
func TestGoRace(t *testing.T) {
	mod := t.TempDir()
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(mod, "pkg", "p_test.go")
	raw := `WARNING: DATA RACE
Write at 0x00c00002c4a0 by thread 2:
  example.com/m/pkg.TestStatus.func1.1()
      ` + file + `:79 +0x37
  github.com/stdbg/stdbg/sthread/internal/rt.(*Thread).run()
      /src/stdbg/sthread/internal/rt/thread.go:331 +0x1f5

Previous read at 0x00c00002c4a0 by thread 1:
  runtime.mapaccess1_faststr()
      /usr/local/go/src/internal/runtime/maps/runtime_faststr.go:263 +0x0
  example.com/m/pkg.TestStatus.func1()
      ` + file + `:82 +0x144
  github.com/stdbg/stdbg/sthread/lang.CheckTest.func1()
      /src/stdbg/sthread/lang/test.go:50 +0xba
  testing.tRunner()
      /usr/local/go/src/testing/testing.go:2036 +0x21c

Thread 2 (running) created at:
  github.com/stdbg/stdbg/sthread/internal/rt.(*Thread).start()
      /src/stdbg/sthread/internal/rt/thread.go:280 +0x58

Thread 1 (running) created at:
  github.com/stdbg/stdbg/sthread/internal/rt.(*Thread).start()
      /src/stdbg/sthread/internal/rt/thread.go:280 +0x58
  testing.tRunner()
      /usr/local/go/src/testing/testing.go:2036 +0x21c
`
	started := map[int]Location{2: {Func: "example.com/m/pkg.TestStatus.func1", File: file, Line: 78}}
	want := `WARNING: DATA RACE
Write at 0x00c00002c4a0 by thread 2:
  example.com/m/pkg.TestStatus.func1()
      pkg/p_test.go:79

Previous read at 0x00c00002c4a0 by thread 1:
  example.com/m/pkg.TestStatus()
      pkg/p_test.go:82

Thread 2 (running) started at:
  example.com/m/pkg.TestStatus()
      pkg/p_test.go:78`
	if got := goRace(raw, started, moduleRoots{}.root, true); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Without a trace (a report of a bug as found, RaceMessage), the
	// threads' go statements are left out, and stdbg's frames all the
	// same.
	asFound := `WARNING: DATA RACE
Write at 0x00c00002c4a0 by thread 2:
  example.com/m/pkg.TestStatus.func1()
      pkg/p_test.go:79

Previous read at 0x00c00002c4a0 by thread 1:
  example.com/m/pkg.TestStatus()
      pkg/p_test.go:82`
	if got := RaceMessage(raw); got != asFound {
		t.Errorf("RaceMessage: got\n%s\nwant\n%s", got, asFound)
	}
	if got := RaceMessage("panic: boom"); got != "panic: boom" {
		t.Errorf("RaceMessage of another message: %q", got)
	}
	if got := Summary(raw); got != "write by thread 2 at p_test.go:79; previous read by thread 1 at p_test.go:82" {
		t.Errorf("Summary: %s", got)
	}
}

// The closures of an instrumented test are named as Go names them in the
// test as written; other names are left alone.
func TestUnwrapTestClosure(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"example.com/m/pkg.TestX.func1", "example.com/m/pkg.TestX"},
		{"example.com/m/pkg.TestX.func1.2", "example.com/m/pkg.TestX.func2"},
		{"example.com/m/pkg.TestX.func1.2.1", "example.com/m/pkg.TestX.func2.1"},
		{"example.com/m/pkg.TestX.func1.gowrap1", "example.com/m/pkg.TestX.func1.gowrap1"},
		{"example.com/m/pkg.helper.func1.2", "example.com/m/pkg.helper.func1.2"},
		{"example.com/m/pkg.Testing.func1", "example.com/m/pkg.Testing.func1"},
		{"example.com/m/pkg.(*T).TestX.func1", "example.com/m/pkg.(*T).TestX.func1"},
		{"example.com/m/pkg.TestX", "example.com/m/pkg.TestX"},
		{"main.TestY.func1.1", "main.TestY.func1"},
	} {
		if got := unwrapTestClosure(tt.in); got != tt.want {
			t.Errorf("unwrapTestClosure(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
