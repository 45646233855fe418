package gotest

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// slowNativeFiles is a package whose test sleeps ten minutes, after it
// started a peer process that it leaves running: under stdbg's scheduler
// the sleep is virtual and the search ends at once, but run as go test
// runs it, the test takes the whole ten minutes. The peers' ids are
// written to the file $PEERS.
var slowNativeFiles = map[string]string{
	"go.mod": "module example.com/slownative\n\ngo 1.22\n",
	"slow_test.go": `package slownative

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"
)

func TestSlowNative(t *testing.T) {
` + peerBody + `	time.Sleep(10 * time.Minute)
}
`,
}

// TestNativeRunWithinBudget checks that a test's run as go test runs it
// ends with what its search left of the budget (at least NativeFloor):
// the run is cut, its process group killed (the peer the test left
// running ends), and the test's line says so, incomplete. (It ran to go
// test's -timeout of ten minutes, then failed as a hang.)
func TestNativeRunWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := t.TempDir()
	if err := writeFiles(dir, slowNativeFiles); err != nil {
		t.Fatal(err)
	}
	defer func(floor time.Duration) { NativeFloor = floor }(NativeFloor)
	NativeFloor = time.Second
	peers := filepath.Join(t.TempDir(), "peers")
	t.Setenv("PEERS", peers)
	const budget = 3 * time.Second
	var out bytes.Buffer
	type ran struct {
		sum *Summary
		err error
	}
	done := make(chan ran, 1)
	go func() {
		sum, err := Run(context.Background(), Config{Dir: dir, Stdout: &out, Parallel: 1, Search: SearchWith(budget, true), Budget: budget})
		done <- ran{sum, err}
	}()
	// The build, the search and the run's bound on a loaded machine: far
	// less than the test's ten minutes.
	const bound = 4 * time.Minute
	var got ran
	select {
	case got = <-done:
	case <-time.After(bound):
		t.Fatalf("stdbg test did not end within %s", bound)
	}
	if got.err != nil {
		t.Fatalf("Run: %v\n%s", got.err, out.String())
	}
	text := out.String()
	if got.sum.Incomplete != 1 || got.sum.Failed != 0 || !strings.Contains(text, "its run as go test runs it was cut by the budget after ") {
		t.Errorf("summary %+v; want TestSlowNative incomplete, its run cut by the budget:\n%s", got.sum, text)
	}
	// The test's time counts its run as go test runs it, cut.
	m := regexp.MustCompile(`(?m)^incomplete +TestSlowNative \((\d+\.\d\d)s\)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no incomplete line for TestSlowNative:\n%s", text)
	}
	if took, _ := strconv.ParseFloat(m[1], 64); took < NativeFloor.Seconds() {
		t.Errorf("TestSlowNative took %ss by its line, less than its run's bound of at least %s:\n%s", m[1], NativeFloor, text)
	}
	peersEnded(t, peers)
}

// TestNativeBound checks the bound of a run as go test runs it: none
// without a budget, what the search left of it, and at least NativeFloor.
func TestNativeBound(t *testing.T) {
	for _, tc := range []struct {
		budget, left, want time.Duration
	}{
		{0, 0, 0},
		{0, time.Minute, 0},
		{time.Minute, 50 * time.Second, 50 * time.Second},
		{time.Minute, 12 * time.Second, 12 * time.Second},
		{time.Minute, 3 * time.Second, NativeFloor},
		{time.Minute, -5 * time.Second, NativeFloor},
		{3 * time.Second, 2 * time.Second, NativeFloor},
	} {
		if got := nativeBound(tc.budget, tc.left); got != tc.want {
			t.Errorf("nativeBound(%s, %s) = %s, want %s", tc.budget, tc.left, got, tc.want)
		}
	}
}
