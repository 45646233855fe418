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

// peersFiles is a package whose test starts a peer process, as tests of
// distributed caches do (a copy of the test binary serving requests), and
// leaves it running: each execution's peer would sleep ten minutes. The
// peers' ids are written to the file $PEERS.
var peersFiles = map[string]string{
	"go.mod": "module example.com/peers\n\ngo 1.22\n",
	"peers_test.go": `package peers

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
)

func TestPeer(t *testing.T) {
	peer := exec.Command("sleep", "600")
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
}
`,
}

// TestPeersEnd checks that the processes a test starts and leaves running
// end with the process of the execution that started them: none is left
// when stdbg test returns, whether the search runs inside the test binary,
// a fresh process per execution (STDBG_REUSE=0), and the test run once as
// go test runs it.
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
			sum, err := Run(context.Background(), Config{Dir: dir, Stdout: &out, Parallel: 1, Search: SearchWith(0, true)})
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, out.String())
			}
			if sum.OK != 1 {
				t.Errorf("summary %+v:\n%s", sum, out.String())
			}
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
		})
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
