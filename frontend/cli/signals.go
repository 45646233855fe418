package cli

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// stopSignals stop a search and keep what it found: ^C, the SIGTERM that
// timeout, CI runners and container runtimes send, and the SIGHUP of a
// closed terminal.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// stopper turns the first stop signal into the cancellation of a context.
// Later signals are absorbed while stdbg finishes (prints, saves and ends
// its targets, which takes well under a second without minimisation), so
// that a second ^C cannot lose the bugs; SIGKILL still ends it.
type stopper struct {
	ctx    context.Context
	cancel context.CancelFunc
	ch     chan os.Signal
	mu     sync.Mutex
	first  os.Signal
	done   chan struct{}
}

// newStopper starts watching the stop signals.
func newStopper() *stopper {
	s := &stopper{ch: make(chan os.Signal, 4), done: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	signal.Notify(s.ch, stopSignals...)
	go func() {
		for {
			select {
			case sig := <-s.ch:
				s.mu.Lock()
				if s.first == nil {
					s.first = sig
				}
				s.mu.Unlock()
				s.cancel()
			case <-s.done:
				return
			}
		}
	}()
	return s
}

// signal returns the first stop signal received, nil if none.
func (s *stopper) signal() os.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.first
}

// exitCode is the conventional status of a process ended by the signal:
// 128 plus its number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
func (s *stopper) exitCode() int {
	if sig, ok := s.signal().(syscall.Signal); ok {
		return 128 + int(sig)
	}
	return 130
}

// stop stops watching: the signals have their default effect again.
func (s *stopper) stop() {
	signal.Stop(s.ch)
	close(s.done)
	s.cancel()
}
