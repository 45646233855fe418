// Command processstate is correct, but leaves state in its process from one
// run of main to the next: an environment variable. stdbg runs many
// executions of a Go program in one process (a program whose module
// declares package-level variables runs each in a fresh process instead);
// here it notices that the program does not repeat itself and searches
// again with a fresh process per execution, where it finds nothing wrong.
package main

import (
	"fmt"
	"os"
	"sync"
)

func main() {
	first := os.Getenv("PROCESSSTATE_RAN") == ""
	os.Setenv("PROCESSSTATE_RAN", "1")
	var mu sync.Mutex
	var wg sync.WaitGroup
	total := 0
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			if first {
				total++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if total != 2 {
		panic(fmt.Sprintf("total %d: main ran before in this process", total))
	}
}
