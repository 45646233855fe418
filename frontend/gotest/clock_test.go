package gotest

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"testing"
)

// initClockTests read the clock as their package is initialised and in
// TestMain, then in the tests: plain Go never gives a negative Since of a
// time read earlier, nor an earlier Now. Under stdbg the initialisation
// read the real clock and the tests the virtual one, which starts at the
// epoch (2000-01-01): time.Since(start) was about minus 26 years.
const initClockTests = `package clk

import (
	"os"
	"sync"
	"testing"
	"time"
)

var start = time.Now()

var deadline = time.Now().Add(time.Hour)

var beforeTests, afterSleep time.Time

func TestMain(m *testing.M) {
	beforeTests = time.Now()
	time.Sleep(time.Millisecond)
	afterSleep = time.Now()
	os.Exit(m.Run())
}

func TestSinceInit(t *testing.T) {
	if d := time.Since(start); d <= 0 {
		t.Fatalf("time.Since(start) = %v: the test ran before the package was initialised", d)
	}
	if d := afterSleep.Sub(beforeTests); d < time.Millisecond {
		t.Fatalf("a sleep of 1ms in TestMain took %v", d)
	}
	if now := time.Now(); !now.After(afterSleep) {
		t.Fatalf("the test reads %v, before TestMain's %v", now, afterSleep)
	}
	if time.Now().After(deadline) {
		t.Fatalf("an hour passed between the package's initialisation and its test")
	}
}

func TestSinceInitGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var min time.Duration = 1 << 62
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := time.Since(start)
			mu.Lock()
			if d < min {
				min = d
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if min <= 0 {
		t.Fatalf("a goroutine's time.Since(start) = %v", min)
	}
}
`

// TestClockBeforeTheCheck: readings of the clock taken before the check
// (a package-level variable's initialiser, TestMain, a sleep there) are
// earlier than the test's, and not by an hour, under stdbg test as under
// go test -race, which judges the tests.
func TestClockBeforeTheCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two test binaries")
	}
	dir := t.TempDir()
	if err := writeFiles(dir, map[string]string{
		"go.mod":          "module example.com/clk\n\ngo 1.25\n",
		"clk/clk_test.go": initClockTests,
	}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-race", "-count=3", "./clk")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -race: %v\n%s", err, out)
	}
	var out bytes.Buffer
	if _, err := Run(context.Background(), Config{Dir: dir, Patterns: []string{"./..."}, Stdout: &out, Parallel: 1, Race: true, Search: SearchWith(0, true)}); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	for _, name := range []string{"TestSinceInit", "TestSinceInitGoroutines"} {
		if !regexp.MustCompile(`(?m)^ok +` + name + ` \(`).MatchString(out.String()) {
			t.Errorf("%s does not pass under stdbg test:\n%s", name, out.String())
		}
	}
}
