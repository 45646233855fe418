package main

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// testLine matches the line stdbg test writes for each test.
var testLine = regexp.MustCompile(`(?m)^(ok|BUG|incomplete|SKIP|FAIL|ERROR) +(Test\w+)`)

// TestEverydayGo: on correct Go of the shapes of almost every program
// (examples/go/plain/everyday: buffered channels that wrap around, maps
// ranged over in goroutines, random numbers, formatting and encoding in
// workers, a worker that writes much to standard error), go test -race
// never fails and stdbg test reports nothing. stdbg's model of a channel's
// buffer and its generators were seen by the race detector, which failed
// the tests ("the test failed (t.Error or t.Fail)" at runtime.goexit), and
// a write of 2 MiB to standard error blocked in the pipe stdbg held there
// (a transition timeout).
func TestEverydayGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go tests with the race detector")
	}
	t.Setenv("STDBG_ZOO", "1")
	dir := filepath.Join("..", "..", "examples", "go", "plain", "everyday")
	cmd := exec.Command("go", "test", "-race", "-count=20", ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -race fails: the example is wrong: %v\n%s", err, out)
	}
	out, errs, code := stdbg(t, "test", "-count=1", "--no-save", "--budget", "5s", dir)
	lines := testLine.FindAllStringSubmatch(out, -1)
	if code != exitClean || len(lines) < 7 || strings.Contains(out+errs, "DATA RACE") {
		t.Fatalf("stdbg test on correct Go: exit %d, %d tests\n%s\n%s", code, len(lines), out, errs)
	}
	for _, m := range lines {
		if m[1] != "ok" && m[1] != "incomplete" {
			t.Errorf("%s: %s\n%s", m[2], m[1], out)
		}
	}
}

// TestRecoveredPanics: in Go a send on a closed channel, a close of a
// closed or nil channel and a negative WaitGroup counter panic, and a
// deferred recover takes the panic (examples/go/plain/recovered). stdbg
// reported each as a misuse and stopped there: the correct tests now pass,
// and the race that comes after a recovered send is found.
func TestRecoveredPanics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go tests with the race detector")
	}
	dir := filepath.Join("..", "..", "examples", "go", "plain", "recovered")
	cmd := exec.Command("go", "test", "-race", "-count=20", ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -race fails: the example is wrong: %v\n%s", err, out)
	}
	t.Setenv("STDBG_ZOO", "1")
	out, errs, code := stdbg(t, "test", "-count=1", "--no-save", "--budget", "5s", dir)
	got := map[string]string{}
	for _, m := range testLine.FindAllStringSubmatch(out, -1) {
		got[m[2]] = m[1]
	}
	want := map[string]string{"TestSendAfterOwnClose": "ok", "TestCloseTwice": "ok", "TestDoneTooOften": "ok", "TestRaceAfterRecovery": "BUG"}
	if code != exitBug || !reflect.DeepEqual(got, want) || !strings.Contains(out, "*** DATA RACE ***") {
		t.Fatalf("stdbg test: exit %d, tests %v, want %v and the race\n%s\n%s", code, got, want, out, errs)
	}
}
