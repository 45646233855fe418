// Package pkgvars keeps state in package-level variables, declared in its
// files, its tests and its external tests.
package pkgvars

import "sync"

var (
	count int
	mu    sync.Mutex
	_     = count
)

// Bump adds one to count.
func Bump() {
	mu.Lock()
	count++
	mu.Unlock()
}
