package main

// Squares returns the squares of jobs, in any order, computed by the given
// number of worker goroutines that take jobs from a buffered channel. A
// negative job is an error: Squares then returns an error (and no
// squares). It returns once every job is done; no goroutine may be left
// running, whether it returns squares or an error.
func Squares(jobs []int, workers int) ([]int, error) {
	var results []int
	for _, j := range jobs {
		results = append(results, j*j)
	}
	return results, nil
}
