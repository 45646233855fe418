// Package latelog copies files in the background and reports progress
// through a callback.
package latelog

import "sync"

// Copier copies files one at a time in a goroutine of its own.
type Copier struct {
	mu     sync.Mutex
	copied []string
}

// Start copies names in the background, calling progress after each one,
// and returns at once.
func (c *Copier) Start(names []string, progress func(string)) {
	go func() {
		for _, n := range names {
			c.mu.Lock()
			c.copied = append(c.copied, n)
			c.mu.Unlock()
			progress(n)
		}
	}()
}

// Copied returns the names copied so far.
func (c *Copier) Copied() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.copied...)
}
