// Command timeoutleak gives a query a deadline with time.After. When the
// deadline wins, the query's goroutine blocks for ever on its send: the
// result channel is unbuffered and nobody receives any more. The fix is a
// channel with room for the result: make(chan string, 1).
package main

import (
	"errors"
	"fmt"
	"time"
)

func query() string {
	time.Sleep(50 * time.Millisecond)
	return "rows"
}

func queryWithTimeout(d time.Duration) (string, error) {
	ch := make(chan string)
	go func() { ch <- query() }()
	select {
	case r := <-ch:
		return r, nil
	case <-time.After(d):
		return "", errors.New("timeout")
	}
}

func main() {
	r, err := queryWithTimeout(100 * time.Millisecond)
	fmt.Println(r, err)
}
