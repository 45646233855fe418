package goinstr

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/internal/rtnames"
)

// stackProgram prints its stack with runtime/debug from main, from a
// method two calls down, from a goroutine it starts, and with PrintStack;
// then with runtime.Stack, its own and, from a goroutine, every
// goroutine's; each section headed by its name.
var stackProgram = map[string]string{
	"go.mod": "module example.com/stack\n\ngo 1.22\n",
	"main.go": `package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

type T struct{}

//go:noinline
func (T) inner() []byte { return debug.Stack() }

//go:noinline
func nested() []byte { return T{}.inner() }

func main() {
	fmt.Printf("== main\n%s", debug.Stack())
	fmt.Printf("== nested\n%s", nested())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		fmt.Printf("== goroutine\n%s", debug.Stack())
	}()
	wg.Wait()
	os.Stdout.Sync()
	fmt.Fprintln(os.Stderr, "== print")
	debug.PrintStack()
	os.Stderr.Sync()
	buf := make([]byte, 1<<16)
	fmt.Printf("== runtime\n%s", buf[:runtime.Stack(buf, false)])
	done := make(chan bool)
	go func() {
		buf := make([]byte, 1<<16)
		fmt.Printf("== all\n%s", buf[:runtime.Stack(buf, true)])
		done <- true
	}()
	<-done
}
`,
}

// stackFrames returns, by section, the frames a stack printed by
// stackProgram holds, in order: the standard library's by function, the
// program's by file and line ("main.go:19"), and the line that names the
// go statement that created the goroutine as "created by main.go:23". (The
// instrumentation runs the body of main in a function literal, whose
// closures' names gain a level: main.main.func1 where Go says main.main.
// The ids of goroutines differ from run to run.)
func stackFrames(out string) map[string][]string {
	sections := map[string][]string{}
	var cur, fn string
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "== "):
			cur = strings.TrimPrefix(line, "== ")
			sections[cur] = []string{}
		case cur == "", line == "", strings.HasPrefix(line, "goroutine "):
		case strings.HasPrefix(line, "\t"):
			at := strings.TrimPrefix(line, "\t")
			at, _, _ = strings.Cut(at, " +0x")
			switch {
			case strings.HasPrefix(fn, "created by "):
				sections[cur] = append(sections[cur], "created by "+filepath.Base(at))
			case strings.HasPrefix(fn, "main."):
				sections[cur] = append(sections[cur], filepath.Base(at))
			default:
				sections[cur] = append(sections[cur], fn)
			}
		default:
			fn = line
			if i := strings.LastIndexByte(fn, '('); i > 0 && !strings.HasPrefix(fn, "created by ") {
				fn = fn[:i]
			}
		}
	}
	return sections
}

// A program that prints its own stack with runtime/debug's Stack and
// PrintStack prints the frames real go run prints, in the same order,
// instrumented: run as it is (outside a check: the way stdbg test runs a
// test as go test runs it) and replaying a schedule under a check. The
// goroutine's stack ends with the program's go statement. Before, the
// stacks named stdbg's runtime (rt.runOutside, a checked goroutine's
// trampoline, "created by" stdbg's function).
func TestDebugStackAsGoRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	dir := t.TempDir()
	writeTree(t, dir, stackProgram)
	build := func(env []string, args ...string) string {
		t.Helper()
		exe := filepath.Join(t.TempDir(), "prog")
		if out, err := goCmd(t, dir, env, append(append([]string{"build", "-o", exe}, args...), ".")...); err != nil {
			t.Fatalf("go build %v: %v\n%s", args, err, out)
		}
		return exe
	}
	run := func(exe string, env ...string) map[string][]string {
		t.Helper()
		cmd := exec.Command(exe)
		cmd.Env = append(cmd.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("running %s %v: %v\n%s", exe, env, err, out)
		}
		return stackFrames(string(out))
	}
	want := run(build(nil))
	for section, frames := range map[string][]string{
		"main":      {"runtime/debug.Stack", "main.go:20"},
		"nested":    {"runtime/debug.Stack", "main.go:14", "main.go:17", "main.go:21"},
		"goroutine": {"runtime/debug.Stack", "main.go:26", "created by main.go:24"},
		"print":     {"runtime/debug.Stack", "runtime/debug.PrintStack", "main.go:31"},
		"runtime":   {"main.go:34"},
		"all":       {"main.go:38", "created by main.go:36", "main.go:41"},
	} {
		if !slices.Equal(want[section], frames) {
			t.Fatalf("go run's %s stack: %q; want %q", section, want[section], frames)
		}
	}
	res, err := Instrument(Config{Dir: dir, Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := Workspace(dir, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	exe := build(ws.Env, "-overlay="+res.Overlay)
	for _, tt := range []struct {
		name string
		env  []string
	}{
		{"outside a check", nil},
		{"replaying under a check", []string{rtnames.ReplayEnv + "=1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := run(exe, tt.env...)
			for _, section := range []string{"main", "nested", "goroutine", "print", "runtime", "all"} {
				if !slices.Equal(got[section], want[section]) {
					t.Errorf("%s: the instrumented program's stack names %q; go run's %q", section, got[section], want[section])
				}
			}
		})
	}
}
