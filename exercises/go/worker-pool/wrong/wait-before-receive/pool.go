package main

import (
	"fmt"
	"sync"
)

// Squares returns the squares of jobs, in any order, computed by workers
// goroutines that take jobs from a channel and send the squares on
// another. Squares waits for the workers, then collects the squares.
func Squares(jobs []int, workers int) ([]int, error) {
	in := make(chan int, len(jobs))
	results := make(chan int)
	for _, j := range jobs {
		if j < 0 {
			return nil, fmt.Errorf("job %d is negative", j)
		}
		in <- j
	}
	close(in)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range in {
				results <- j * j
			}
		}()
	}
	wg.Wait() // every job is done
	close(results)
	var out []int
	for v := range results {
		out = append(out, v)
	}
	return out, nil
}
