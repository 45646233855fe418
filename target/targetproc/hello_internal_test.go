package targetproc

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// helloPair returns the checker's end of a socket pair like launch's, with
// a read deadline, and the program's end.
func helloPair(t *testing.T) (ours *os.File, theirs int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.SetNonblock(fds[0], true)
	ours = os.NewFile(uintptr(fds[0]), "ctl")
	t.Cleanup(func() { ours.Close(); unix.Close(fds[1]) })
	ours.SetReadDeadline(time.Now().Add(10 * time.Second))
	return ours, fds[1]
}

// TestHelloBufferHoldsTheGreeting: the greeting is read whole whatever its
// size, a larger one than the fixed buffer launch had (1 MB) too, where the
// kernel allows it.
func TestHelloBufferHoldsTheGreeting(t *testing.T) {
	for _, size := range []int{1, 300, 64 << 10, 200 << 10} {
		ours, theirs := helloPair(t)
		msg := make([]byte, size)
		for i := range msg {
			msg[i] = byte(i * 7)
		}
		unix.SetsockoptInt(theirs, unix.SOL_SOCKET, unix.SO_SNDBUF, 4<<20)
		if _, err := unix.Write(theirs, msg); err != nil {
			t.Logf("size %d: %v (the kernel's limit)", size, err)
			continue
		}
		buf, err := helloBuffer(ours)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		n, err := ours.Read(buf)
		if err != nil || n != size || string(buf[:n]) != string(msg) {
			t.Errorf("size %d: read %d bytes (%v), want the %d of the greeting", size, n, err, size)
		}
	}
}

// TestHelloBufferWaits: no greeting within the deadline is the deadline's
// error (startFailure's "did not reach its first thread operation"), a
// program gone without one is the end of the file.
func TestHelloBufferWaits(t *testing.T) {
	ours, _ := helloPair(t)
	ours.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := helloBuffer(ours); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("no greeting: %v, want the deadline exceeded", err)
	}

	ours, theirs := helloPair(t)
	unix.Shutdown(theirs, unix.SHUT_WR)
	buf, err := helloBuffer(ours)
	if err == nil {
		_, err = ours.Read(buf)
	}
	if !errors.Is(err, io.EOF) {
		t.Errorf("program gone: %v, want EOF", err)
	}
}
