package main

// Squares returns the squares of jobs, in any order, computed by the given
// number of worker goroutines that take jobs from a buffered channel. It returns
// once every job is done; no goroutine may be left running.
func Squares(jobs []int, workers int) []int {
	var results []int
	for _, j := range jobs {
		results = append(results, j*j)
	}
	return results
}
