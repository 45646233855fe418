package main

import "fmt"

// Squares returns the squares of jobs, in any order, computed by workers
// goroutines that take jobs from a channel and send the squares on
// another. Each worker closes the results when it runs out of jobs, so
// that the loop collecting them ends.
func Squares(jobs []int, workers int) ([]int, error) {
	for _, j := range jobs {
		if j < 0 {
			return nil, fmt.Errorf("job %d is negative", j)
		}
	}
	in := make(chan int, len(jobs))
	for _, j := range jobs {
		in <- j
	}
	close(in)
	results := make(chan int)
	for w := 0; w < workers; w++ {
		go func() {
			defer close(results)
			for j := range in {
				results <- j * j
			}
		}()
	}
	var out []int
	for v := range results {
		out = append(out, v)
	}
	return out, nil
}
