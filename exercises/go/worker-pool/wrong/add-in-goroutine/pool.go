package main

import (
	"fmt"
	"sync"
)

// Squares returns the squares of jobs, in any order, computed by workers
// goroutines that take jobs from a channel.
func Squares(jobs []int, workers int) ([]int, error) {
	in := make(chan int, len(jobs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	var results []int
	var err error // the first negative job
	for w := 0; w < workers; w++ {
		go func() {
			wg.Add(1)
			defer wg.Done()
			for j := range in {
				if j < 0 {
					mu.Lock()
					if err == nil {
						err = fmt.Errorf("job %d is negative", j)
					}
					mu.Unlock()
					continue
				}
				mu.Lock()
				results = append(results, j*j)
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		in <- j
	}
	close(in)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	return results, nil
}
