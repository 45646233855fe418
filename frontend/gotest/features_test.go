package gotest

import (
	"bytes"
	"context"
	goversion "go/version"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// featureTests are tests written with what Go 1.22 to 1.25 added to the
// language and the library (range over an int, range over a function,
// sync.WaitGroup.Go, testing.T.Context and T.Chdir), each correct or with
// a bug of its own, and the line stdbg test must give each; and a struct
// of sync's types padded to a cache line.
const featureTests = `package feat

import (
	"context"
	"iter"
	"os"
	"sync"
	"testing"
	"unsafe"
)

const cacheLine = 64

// bucket pads itself to a cache line: with a sync.Mutex larger than Go's,
// the array's length is negative and the package does not build.
type bucket struct {
	mu   sync.Mutex
	wg   sync.WaitGroup
	once sync.Once
	n    int
	_    [cacheLine - unsafe.Sizeof(struct {
		mu   sync.Mutex
		wg   sync.WaitGroup
		once sync.Once
		n    int
	}{})]byte
}

func TestPadded(t *testing.T) {
	var bs [2]bucket
	if unsafe.Sizeof(bs[0]) != cacheLine {
		t.Fatalf("a bucket has %d bytes", unsafe.Sizeof(bs[0]))
	}
	for i := range bs {
		b := &bs[i]
		b.wg.Go(func() {
			b.once.Do(func() { b.n = 10 })
			b.mu.Lock()
			b.n++
			b.mu.Unlock()
		})
	}
	for i := range bs {
		bs[i].wg.Wait()
		if bs[i].n != 11 {
			t.Fatal(bs[i].n)
		}
	}
}

// counter is a count under a lock.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) inc() { c.mu.Lock(); c.n++; c.mu.Unlock() }

func TestWaitGroupGo(t *testing.T) {
	var c counter
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(c.inc)
	}
	wg.Wait()
	if c.n != 2 {
		t.Fatal(c.n)
	}
}

func TestWaitGroupGoLost(t *testing.T) {
	var c counter
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			c.mu.Lock()
			v := c.n
			c.mu.Unlock()
			c.mu.Lock()
			c.n = v + 1
			c.mu.Unlock()
		})
	}
	wg.Wait()
	if c.n != 2 {
		t.Fatalf("lost an update: %d", c.n)
	}
}

// Each iteration's i is its own (Go 1.22).
func TestRangeInt(t *testing.T) {
	var mu sync.Mutex
	sum := 0
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			sum += i
			mu.Unlock()
		}()
	}
	wg.Wait()
	if sum != 3 {
		t.Fatal(sum)
	}
}

// results yields the values of n workers in the order they finish.
func results(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		ch := make(chan int)
		for i := range n {
			go func() { ch <- i }()
		}
		for range n {
			if !yield(<-ch) {
				return
			}
		}
	}
}

func TestIter(t *testing.T) {
	sum := 0
	for v := range results(3) {
		sum += v
	}
	if sum != 3 {
		t.Fatal(sum)
	}
}

func TestIterLeak(t *testing.T) {
	for range results(2) {
		break // the other worker stays blocked on its send
	}
}

func TestContext(t *testing.T) {
	ctx := t.Context()
	done := make(chan struct{})
	go func() { <-ctx.Done(); close(done) }()
	t.Cleanup(func() { <-done })
}

func TestContextSubtest(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		done := make(chan struct{})
		go func() { <-ctx.Done(); close(done) }()
		t.Cleanup(func() { <-done })
	})
}

func TestContextRace(t *testing.T) {
	ctx := t.Context()
	n := 0
	go func() { <-ctx.Done(); n++ }()
	t.Cleanup(func() { n++ })
}

func TestChdir(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("x", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := os.ReadFile("x"); err != nil {
			t.Error(err)
		}
	})
	wg.Wait()
}
`

// featureLines are the lines stdbg test gives the tests of featureTests.
var featureLines = []struct{ status, test, detail string }{
	{"ok", "TestPadded", "exhaustive"},
	{"ok", "TestWaitGroupGo", "exhaustive"},
	{"BUG", "TestWaitGroupGoLost", "*** PROPERTY NOT VALID: ASSERTION FAILED ***"},
	{"ok", "TestRangeInt", "exhaustive"},
	{"ok", "TestIter", "exhaustive"},
	{"BUG", "TestIterLeak", "*** THREADS LEAKED: BLOCKED FOREVER AT EXIT ***"},
	{"ok", "TestContext", "exhaustive"},
	{"ok", "TestContextSubtest", "exhaustive"},
	{"BUG", "TestContextRace", "*** DATA RACE ***"},
	{"ok", "TestChdir", "exhaustive"},
}

// bubbleTests are tests written with testing/synctest (Go 1.25), each
// correct or with a bug, as real Go judges them (go test panics on a
// bubble's deadlock; the lock-order deadlock shows in some runs).
const bubbleTests = `package feat

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestBubbleLockOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var a, b sync.Mutex
		var wg sync.WaitGroup
		wg.Go(func() {
			b.Lock()
			a.Lock()
			a.Unlock()
			b.Unlock()
		})
		a.Lock()
		b.Lock()
		b.Unlock()
		a.Unlock()
		wg.Wait()
	})
}

func TestBubbleWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		done := false
		go func() { done = true }()
		synctest.Wait()
		if !done {
			t.Fatal("Wait returned before the goroutine ended")
		}
	})
}

func TestBubbleTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var mu sync.Mutex
		var order []int
		go func() {
			time.Sleep(time.Second)
			mu.Lock()
			order = append(order, 1)
			mu.Unlock()
		}()
		time.Sleep(2 * time.Second)
		mu.Lock()
		defer mu.Unlock()
		if len(order) != 1 {
			t.Fatalf("the sleeper of 1s did not wake first: %v", order)
		}
		if d := time.Since(start); d < 2*time.Second {
			t.Fatalf("slept %v", d)
		}
	})
}

func TestBubbleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		time.Sleep(5*time.Second - time.Nanosecond)
		synctest.Wait()
		if err := ctx.Err(); err != nil {
			t.Fatalf("before the timeout: %v", err)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if err := ctx.Err(); err != context.DeadlineExceeded {
			t.Fatalf("after the timeout: %v", err)
		}
	})
}

func TestBubbleLeftBlocked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan int)
		go func() { <-ch }()
	})
}

func TestBubbleCleanup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		done := make(chan struct{})
		go func() { <-ctx.Done(); close(done) }()
		t.Cleanup(func() { <-done })
	})
}

// A worker that forgets its lock, found inside the bubble.
func TestBubbleRace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		n := 0
		var wg sync.WaitGroup
		wg.Go(func() { n++ })
		wg.Go(func() { mu.Lock(); n++; mu.Unlock() })
		wg.Wait()
	})
}
`

// bubbleLines are the lines stdbg test gives the tests of bubbleTests.
var bubbleLines = []struct{ status, test, detail string }{
	{"BUG", "TestBubbleLockOrder", "*** DEADLOCK DETECTED ***"},
	{"ok", "TestBubbleWait", "exhaustive"},
	{"ok", "TestBubbleTime", "exhaustive"},
	{"ok", "TestBubbleTimeout", "exhaustive"},
	{"BUG", "TestBubbleLeftBlocked", "*** MISUSE OF THE THREAD API ***"},
	{"ok", "TestBubbleCleanup", "exhaustive"},
	{"BUG", "TestBubbleRace", "*** DATA RACE ***"},
}

// checkFeatures runs stdbg test on a module made of files, in dir, and
// checks the lines of its tests: lines, and those of featureLines and
// bubbleLines.
func checkFeatures(t *testing.T, dir string, files map[string]string, lines []struct{ status, test, detail string }) {
	t.Helper()
	if err := writeFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	// TestChdir's t.TempDir must not outlive the search, which ends the
	// test's process before package testing removes it: a temporary
	// directory of the run's own must be empty at its end.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out bytes.Buffer
	_, err := Run(context.Background(), Config{Dir: dir, Patterns: []string{"./..."}, Stdout: &out, Parallel: 1, Race: true, Search: SearchWith(0, true)})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("left in the temporary directory after stdbg test: %q", left)
	}
	for _, want := range slices.Concat(lines, featureLines, bubbleLines) {
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want.status) + ` +` + want.test + ` \(\d+\.\d\ds\): ` + regexp.QuoteMeta(want.detail))
		if !re.MatchString(out.String()) {
			t.Errorf("no line %s %s: %s in:\n%s", want.status, want.test, want.detail, out.String())
		}
	}
}

// TestFeatures checks tests written with the language and library
// features of Go 1.22 to 1.25 through stdbg test, testing/synctest's
// bubbles among them: the correct ones pass with an exhaustive search,
// each bug is found.
func TestFeatures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	checkFeatures(t, t.TempDir(), map[string]string{
		"go.mod":              "module example.com/feat\n\ngo 1.25\n",
		"feat/feat_test.go":   featureTests,
		"feat/bubble_test.go": bubbleTests,
	}, nil)
}

// toolchainEnv names the newest Go toolchain to check modules of
// (go1.27.3): TestNewestToolchain runs when it is set (.ci/run sets it),
// since the go command fetches that toolchain through the module proxy.
const toolchainEnv = "STDBG_TEST_TOOLCHAIN"

// TestNewestToolchain checks a module whose go.mod asks for the newest Go
// (go 1.27, toolchain go1.27.3) and that uses its language (a generic
// method), with the go command free to switch to that toolchain as it
// does by default: stdbg test checks it with that Go's semantics whatever
// Go stdbg was built with (older, through an instrumenter built with the
// module's toolchain; the same or newer, by itself).
func TestNewestToolchain(t *testing.T) {
	v := os.Getenv(toolchainEnv)
	if v == "" {
		t.Skipf("set %s to the newest Go toolchain (go1.27.3) to check a module of it", toolchainEnv)
	}
	t.Setenv("GOTOOLCHAIN", "auto")
	lang := strings.TrimPrefix(goversion.Lang(v), "go")
	checkFeatures(t, t.TempDir(), map[string]string{
		"go.mod":              "module example.com/feat\n\ngo " + lang + "\n\ntoolchain " + v + "\n",
		"feat/feat_test.go":   featureTests,
		"feat/bubble_test.go": bubbleTests,
		"feat/box.go": `package feat

import "sync"

// box holds a count under a lock.
type box struct {
	mu sync.Mutex
	n  int
}

func (b *box) inc() { b.mu.Lock(); b.n++; b.mu.Unlock() }

// apply calls f with the count, under the lock: a generic method.
func (b *box) apply[T any](f func(int) T) T {
	b.mu.Lock()
	defer b.mu.Unlock()
	return f(b.n)
}
`,
		"feat/box_test.go": `package feat

import "testing"

func TestGenericMethod(t *testing.T) {
	var b box
	done := make(chan bool)
	go func() { b.inc(); done <- true }()
	s := b.apply[string](func(n int) string { return string(rune('0' + n)) })
	<-done
	if s != "1" {
		t.Fatalf("apply saw %s: the increment came after", s)
	}
}
`,
	}, []struct{ status, test, detail string }{
		{"BUG", "TestGenericMethod", "*** PROPERTY NOT VALID: ASSERTION FAILED ***"},
	})
}
