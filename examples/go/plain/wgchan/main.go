// Command wgchan collects the results of workers on an unbuffered channel,
// but waits for the WaitGroup before reading them: the workers block on
// their sends, never call Done, and Wait never returns. wgchanok is the
// fixed version.
package main

import (
	"fmt"
	"sync"
)

func main() {
	results := make(chan int)
	var wg sync.WaitGroup
	for i := 1; i <= 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- i * i
		}()
	}
	wg.Wait() // the fix: wait in a goroutine of its own, then close
	close(results)
	sum := 0
	for r := range results {
		sum += r
	}
	fmt.Println(sum)
}
