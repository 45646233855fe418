package dap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// CheckListen reports why addr cannot be the address a server listens
// at: the server runs programs for whoever connects, so it listens on a
// loopback address only.
func CheckListen(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port", addr)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%s is not a loopback address: the server runs programs for whoever connects, so it listens on loopback (127.0.0.1, ::1) only", host)
	}
	return nil
}

// Listen listens at addr, a loopback host:port (port 0 for a free one).
func Listen(addr string) (net.Listener, error) {
	if err := CheckListen(addr); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening at %s: %w", addr, err)
	}
	return l, nil
}

// ErrNoClient says that no client came within the wait.
var ErrNoClient = errors.New("no client came")

// ServeListener waits at most wait for one client on l, serves it (Serve)
// and closes l: the server ends when its client leaves.
func (s *Server) ServeListener(ctx context.Context, l net.Listener, wait time.Duration) error {
	defer l.Close()
	type deadliner interface{ SetDeadline(time.Time) error }
	if d, ok := l.(deadliner); ok {
		d.SetDeadline(time.Now().Add(wait))
	}
	stop := context.AfterFunc(ctx, func() { l.Close() })
	conn, err := l.Accept()
	stop()
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("%w within %v", ErrNoClient, wait)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("waiting for a client: %w", err)
	}
	l.Close() // one client: later ones are refused
	defer conn.Close()
	return s.Serve(ctx, conn, conn)
}
