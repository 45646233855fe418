package main

import (
	"fmt"
	"sync"
)

// Squares returns the squares of jobs, in any order, computed by workers
// goroutines that take jobs from a channel and send the squares on
// another; a worker that meets a negative job reports it on errs and goes
// on. Squares returns at the first error.
func Squares(jobs []int, workers int) ([]int, error) {
	in := make(chan int, len(jobs))
	results := make(chan int)
	errs := make(chan error, len(jobs))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range in {
				if j < 0 {
					errs <- fmt.Errorf("job %d is negative", j)
					continue
				}
				results <- j * j
			}
		}()
	}
	for _, j := range jobs {
		in <- j
	}
	close(in)
	go func() {
		wg.Wait()
		close(results)
	}()
	var out []int
	for {
		select {
		case v, ok := <-results:
			if !ok {
				return out, nil
			}
			out = append(out, v)
		case err := <-errs:
			return nil, err
		}
	}
}
