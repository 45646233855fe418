// Package recovered holds Go that recovers from the panics of channel and
// wait group misuses: in Go a send on a closed channel, a close of a closed
// or nil channel and a negative WaitGroup counter panic, and a deferred
// recover takes the panic; only an unrecovered one is a crash. (An unlock
// of an unlocked mutex is a fatal error, which nothing recovers.)
package recovered

import (
	"errors"
	"sync"
)

// ErrClosed is what TrySend and TryClose return for a closed channel.
var ErrClosed = errors.New("closed")

// TrySend sends v on c, or returns ErrClosed if c is closed.
func TrySend(c chan<- int, v int) (err error) {
	defer func() {
		if recover() != nil {
			err = ErrClosed
		}
	}()
	c <- v
	return nil
}

// TryClose closes c, or returns ErrClosed if it was closed already (or
// is nil).
func TryClose(c chan int) (err error) {
	defer func() {
		if recover() != nil {
			err = ErrClosed
		}
	}()
	close(c)
	return nil
}

// TryDone calls wg.Done, and reports false if that took the counter below
// zero.
func TryDone(wg *sync.WaitGroup) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	wg.Done()
	return true
}
