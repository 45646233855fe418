// Command fanin asks several workers for a result and takes the first one
// that arrives, or gives up when it is cancelled. The workers send on an
// unbuffered channel: once the caller has taken one result, or has given
// up, every other worker blocks for ever on its send (a goroutine leak).
// The fix is a channel with room for every worker's result.
package main

import "fmt"

func first(workers int, cancel <-chan struct{}) (int, bool) {
	results := make(chan int) // the fix: make(chan int, workers)
	for i := 0; i < workers; i++ {
		go func(id int) {
			results <- id * 10
		}(i)
	}
	select {
	case v := <-results:
		return v, true
	case <-cancel:
		return 0, false
	}
}

func main() {
	cancel := make(chan struct{})
	go close(cancel)
	v, ok := first(2, cancel)
	fmt.Println(v, ok)
}
