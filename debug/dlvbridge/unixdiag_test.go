package dlvbridge

import (
	"net"
	"path/filepath"
	"testing"
	"time"
)

// TestUnixConnections: a client connected to a Unix socket is seen as
// established at the listener's end, and as gone once it closes (what
// WaitClient needs to end a session whose client left).
func TestUnixConnections(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	if got := unixConnectionsOf(path); len(got) != 0 {
		t.Fatalf("before any client: %v, want none", got)
	}
	client, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	server := <-accepted
	defer server.Close()
	if got := unixConnectionsOf(path); len(got) != 1 || !got[0].established {
		t.Fatalf("with a client: %v, want one established connection", got)
	}
	client.Close()
	// The kernel marks the server's end at once; allow it a moment.
	for i := 0; ; i++ {
		got := unixConnectionsOf(path)
		if len(got) == 1 && !got[0].established {
			break
		}
		if i == 50 {
			t.Fatalf("after the client left: %v, want one connection that is no longer established", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
