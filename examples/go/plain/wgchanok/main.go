// Command wgchanok is wgchan fixed: a goroutine waits for the workers and
// closes the channel while main reads it.
package main

import (
	"fmt"
	"sync"
)

const workers = 1 // exhaustive search grows fast with each worker

func main() {
	results := make(chan int)
	var wg sync.WaitGroup
	for i := 1; i <= workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- i * i
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	sum := 0
	for r := range results {
		sum += r
	}
	fmt.Println(sum)
}
