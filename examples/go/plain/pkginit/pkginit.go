// Package pkginit is a correct package whose initialisation does what
// stdbg does not see: a package-level variable's initialiser starts a
// server goroutine, another closes a channel, and a context made there is
// cancelled by the standard library's code. stdbg controls the goroutines
// that a test starts, not those started before it: a test that waits for
// the server is not a deadlock, and stdbg says that it cannot judge it
// rather than report one. A channel closed outside the check is closed
// for stdbg too.
package pkginit

import "context"

// requests is served by a goroutine that the package starts as it
// initialises its variables.
var requests = make(chan chan int)

var _ = serve()

// serve starts the server.
func serve() bool {
	go func() {
		for reply := range requests {
			reply <- 42
		}
	}()
	return true
}

// Ask asks the server for its answer.
func Ask() int {
	reply := make(chan int)
	requests <- reply
	return <-reply
}

// ready is closed as the package initialises.
var ready = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Ready waits until the package is ready.
func Ready() { <-ready }

// ctx is the package's context, made as it initialises (the standard
// library's: stdbg's contexts are made under a check only).
var ctx, cancel = context.WithCancel(context.Background())

// Stop cancels the package's context and waits until a watcher saw it.
func Stop() {
	seen := make(chan struct{})
	go func() {
		<-ctx.Done()
		close(seen)
	}()
	cancel()
	<-seen
}
