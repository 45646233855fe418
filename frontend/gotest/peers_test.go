package gotest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// peersFiles is a package whose test TestPeer starts a peer process, as
// tests of distributed caches do (a copy of the test binary serving
// requests), and leaves it running: each execution's peer would sleep ten
// minutes. The peers' ids are written to the file $PEERS. TestLoud writes
// a megabyte to its standard output and error in every execution, more
// than a pipe holds.
var peersFiles = map[string]string{
	"go.mod": "module example.com/peers\n\ngo 1.22\n",
	"peers_test.go": `package peers

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestLoud(t *testing.T) {
	line := strings.Repeat("x", 1023) + "\n"
	var mu sync.Mutex
	done := make(chan bool)
	go func() {
		mu.Lock()
		fmt.Fprint(os.Stderr, strings.Repeat(line, 512))
		mu.Unlock()
		done <- true
	}()
	mu.Lock()
	fmt.Print(strings.Repeat(line, 512))
	mu.Unlock()
	<-done
}

func TestPeer(t *testing.T) {
` + peerBody + `}
`,
}

// TestPeersEnd checks that the processes a test starts and leaves running
// end with the process of the execution that started them: none is left
// when stdbg test returns, whether the search runs inside the test binary,
// a fresh process per execution (STDBG_REUSE=0), and the test run once as
// go test runs it. A test whose output would fill any pipe is searched to
// its end all the same.
func TestPeersEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := t.TempDir()
	if err := writeFiles(dir, peersFiles); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, reuse string }{{"in the target", ""}, {"a process per execution", "0"}} {
		t.Run(tc.name, func(t *testing.T) {
			peers := filepath.Join(t.TempDir(), "peers")
			t.Setenv("PEERS", peers)
			if tc.reuse != "" {
				t.Setenv("STDBG_REUSE", tc.reuse)
			}
			var out bytes.Buffer
			sum, err := Run(context.Background(), Config{Dir: dir, Stdout: &out, Parallel: 1, Search: SearchWith(time.Minute, true), Budget: time.Minute})
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, out.String())
			}
			if sum.OK != 2 {
				t.Errorf("summary %+v:\n%s", sum, out.String())
			}
			peersEnded(t, peers)
		})
	}
}

// peerBody is the body shared by the test packages' tests that start a
// peer process (a sleep of ten minutes) and leave it running, its id
// appended to the file $PEERS, and then take a lock in two goroutines, so
// that their search has more than one execution.
const peerBody = `	peer := exec.Command("sleep", "600")
	if err := peer.Start(); err != nil {
		t.Fatal(err)
	}
	if f, err := os.OpenFile(os.Getenv("PEERS"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.WriteString(strconv.Itoa(peer.Process.Pid) + "\n")
		f.Close()
	}
	var mu sync.Mutex
	n := 0
	done := make(chan bool)
	go func() { mu.Lock(); n++; mu.Unlock(); done <- true }()
	mu.Lock()
	n++
	mu.Unlock()
	<-done
`

// peersEnded checks that every peer process whose id the file peers
// names has ended once stdbg test returned (killing any that has not),
// and that there were at least two: one per execution and one in the run
// as go test runs it.
func peersEnded(t *testing.T, peers string) {
	t.Helper()
	text, err := os.ReadFile(peers)
	if err != nil {
		t.Fatal(err)
	}
	pids := strings.Fields(string(text))
	if len(pids) < 2 {
		t.Fatalf("the test started %d peers, want one per execution and one in the run as go test runs it", len(pids))
	}
	for _, s := range pids {
		pid, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		if !ends(pid) {
			t.Errorf("peer %d still runs after stdbg test returned", pid)
			unix.Kill(pid, unix.SIGKILL)
		}
	}
}

// ends reports whether process pid ends (or waits to be reaped) within a
// few seconds: a process killed is reaped by init a moment later.
func ends(pid int) bool {
	for range 300 {
		if unix.Kill(pid, 0) != nil {
			return true
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}
