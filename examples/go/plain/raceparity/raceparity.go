// Package raceparity holds small programs whose data races Go's race
// detector reports on a plain run (go test -race), which stdbg must report
// too: each is a shape where the race hides behind an operation the
// checker could take for a synchronisation, or behind an order of
// goroutines that a search must run.
package raceparity

import "sync"

// Watcher hands out a channel that its Stop closes and forgets.
type Watcher struct {
	ch   chan int
	quit chan struct{}
}

// NewWatcher returns a running watcher.
func NewWatcher() *Watcher { return &Watcher{ch: make(chan int), quit: make(chan struct{})} }

// Stop closes the channel and clears the field, then says it stopped: a
// goroutine still about to select on w.ch reads the field while Stop
// writes it.
func (w *Watcher) Stop() {
	close(w.ch)
	w.ch = nil
	close(w.quit)
}

// Wait waits until the watcher's channel is closed, or the watcher
// stopped.
func (w *Watcher) Wait() {
	select {
	case <-w.ch:
	case <-w.quit:
	}
}

// Registry counts what it has seen in a sync.Map's Range callback.
type Registry struct {
	m    sync.Map
	seen int
}

// Add registers a key.
func (r *Registry) Add(k string) { r.m.Store(k, true) }

// Scan counts the registered keys in a plain field, from inside Range.
func (r *Registry) Scan() {
	r.m.Range(func(_, _ any) bool {
		r.seen++
		return true
	})
}

// Seen returns the count, without a lock.
func (r *Registry) Seen() int { return r.seen }

// Names is made lazily, checked without its lock.
type Names struct {
	mu sync.Mutex
	m  map[string]int
}

// Add counts a name, making the map on first use.
func (n *Names) Add(name string) {
	if n.m == nil { // read without the lock
		n.mu.Lock()
		n.m = map[string]int{}
		n.mu.Unlock()
	}
	n.mu.Lock()
	n.m[name]++
	n.mu.Unlock()
}

// Session holds a buffer that Close drops.
type Session struct {
	mu     sync.Mutex
	closed bool
	buf    []byte
}

// NewSession returns an open session with n bytes pending.
func NewSession(n int) *Session { return &Session{buf: make([]byte, n)} }

// Pending returns how many bytes wait in the buffer, read under the lock.
func (s *Session) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.buf)
}

// Close marks the session closed under the lock, then drops the buffer
// after the unlock: a Pending that takes the lock after that unlock reads
// the field Close writes with nothing to order the two.
func (s *Session) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.buf = nil
}

// CloseLocked is Close with the buffer dropped before the unlock.
func (s *Session) CloseLocked() {
	s.mu.Lock()
	s.closed = true
	s.buf = nil
	s.mu.Unlock()
}
