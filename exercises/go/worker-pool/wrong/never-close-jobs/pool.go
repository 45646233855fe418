package main

import "sync"

// Squares returns the squares of jobs, in any order, computed by workers
// goroutines that take jobs from a channel.
func Squares(jobs []int, workers int) []int {
	in := make(chan int, len(jobs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	var results []int
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range in {
				mu.Lock()
				results = append(results, j*j)
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		in <- j
	}
	wg.Wait()
	return results
}
