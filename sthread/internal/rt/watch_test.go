package rt

import (
	"os/exec"
	"testing"
	"time"
)

// watchProbe is written by the goroutine that starts a check, before it
// starts it, and read by the watchdog as it makes its ticker.
var watchProbe int

// The watchdog is started before the scheduler hides its synchronisation
// from the race detector: what the process did before the check happens
// before the watchdog, and before the callbacks of its ticker, which the Go
// runtime runs on the scheduling thread's system stack, where a race report
// crashes the race runtime without a word (a race-built target died a tick
// into its first long transition). Started after, the watchdog's read of
// the probe is reported as a race and the test fails. Without the race
// detector, the test runs itself in a build with it.
func TestWatchdogHappensAfterStart(t *testing.T) {
	if !raceOn {
		if testing.Short() {
			t.Skip("builds the package with the race detector")
		}
		out, err := exec.Command("go", "test", "-race", "-count=1", "-run", "^TestWatchdogHappensAfterStart$", ".").CombinedOutput()
		if err != nil {
			t.Fatalf("with the race detector: %v\n%s", err, out)
		}
		return
	}
	watchProbe++
	seen := make(chan int, 1)
	defer func(old func(time.Duration) *time.Ticker) { newTicker = old }(newTicker)
	newTicker = func(d time.Duration) *time.Ticker {
		seen <- watchProbe
		return time.NewTicker(d)
	}
	raceHide = true
	defer func() { raceHide = false }()
	r, _ := Start(func() {}, Config{Depth: 1, Timeout: time.Second})
	got := <-seen
	r.Stop()
	if got != watchProbe {
		t.Errorf("the watchdog read %d, want %d", got, watchProbe)
	}
}
