package synctest_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stdbg/stdbg/frontend/gotest"
)

// clockTests are tests of a bubble's clock that pass under go test, the
// judge: a bubble's time starts at midnight UTC, 2000-01-01, whatever time
// passed before outside; readings in a bubble are its time exactly; its
// time passes at once when every goroutine of the bubble is durably
// blocked, without moving the clock outside, nor moved by it.
const clockTests = `package clock

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestBubbleEpoch(t *testing.T) {
	time.Sleep(time.Millisecond) // outside the bubble
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if want := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC); !start.Equal(want) {
			t.Errorf("the bubble began at %v, want %v", start, want)
		}
		if again := time.Now(); !again.Equal(start) {
			t.Errorf("two readings with no sleep between: %v, then %v", start, again)
		}
		time.Sleep(time.Second)
		if d := time.Since(start); d != time.Second {
			t.Errorf("a sleep of 1s took %v", d)
		}
	})
}

func TestBubbleHourBeforeMinuteOutside(t *testing.T) {
	done := make(chan struct{})
	go func() {
		synctest.Test(t, func(t *testing.T) {
			time.Sleep(time.Hour)
		})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Error("a bubble's hour took more than a minute outside")
	}
}

func TestBubbleHoursFireNoTimerOutside(t *testing.T) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(2 * time.Hour)
	})
	select {
	case <-timer.C:
		t.Error("a bubble's two hours fired a timer of an hour outside")
	default:
	}
}

func TestBubbleTimerInBubbleTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		timer := time.NewTimer(3 * time.Second)
		at := <-timer.C
		if d := at.Sub(start); d != 3*time.Second {
			t.Errorf("a timer of 3s delivered a time %v after the start", d)
		}
	})
}
`

// TestBubbleClock checks a bubble's clock against real Go: go test passes
// each test of clockTests, and stdbg test must find no bug in any (before
// each bubble had its own clock, every one was reported failed).
func TestBubbleClock(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":              "module example.com/clock\n\ngo 1.25\n",
		"clock/clock_test.go": clockTests,
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"TestBubbleEpoch", "TestBubbleHourBeforeMinuteOutside", "TestBubbleHoursFireNoTimerOutside", "TestBubbleTimerInBubbleTime"}

	// The judge (the bubbles' clocks are fake: one run says it all).
	cmd := exec.Command("go", "test", "-race", "-count=1", "-v", "./clock")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test fails on tests that must pass: %v\n%s", err, out)
	}
	for _, n := range names {
		if !regexp.MustCompile(`(?m)^--- PASS: ` + n + ` `).Match(out) {
			t.Fatalf("go test did not pass %s:\n%s", n, out)
		}
	}

	t.Setenv("STDBG_CACHE", t.TempDir())
	// sthread is built from the source tree under test, at one path
	// whatever the cache, so that the go command's build cache serves its
	// compiles (the copy a cache holds is checked by goinstr's tests and
	// the root package's TestInstalled).
	if os.Getenv("STDBG_SOURCE") == "" {
		src, err := filepath.Abs(filepath.Join("..", "..", ".."))
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("STDBG_SOURCE", src)
	}
	var buf bytes.Buffer
	if _, err := gotest.Run(context.Background(), gotest.Config{Dir: dir, Patterns: []string{"./..."}, Stdout: &buf, Parallel: 1, Race: true, Search: gotest.SearchWith(0, true)}); err != nil {
		t.Fatalf("stdbg test: %v\n%s", err, buf.String())
	}
	for _, n := range names {
		re := regexp.MustCompile(`(?m)^ok +` + n + ` \(\d+\.\d\ds\): exhaustive`)
		if !re.MatchString(buf.String()) {
			t.Errorf("stdbg test does not pass %s, which go test passes:\n%s", n, buf.String())
		}
	}
}
