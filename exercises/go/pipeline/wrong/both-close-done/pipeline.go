package main

// FirstSquares returns the squares of 1, 2, ..., n from a pipeline of two
// goroutines. The squarer closes done when it has sent its last square,
// and so does FirstSquares when it has them all, to be sure the generator
// stops.
func FirstSquares(n int) []int {
	done := make(chan struct{})
	nums := make(chan int)
	go func() {
		defer close(nums)
		for i := 1; ; i++ {
			select {
			case nums <- i:
			case <-done:
				return
			}
		}
	}()
	squares := make(chan int)
	go func() {
		defer close(done)
		for v := range nums {
			select {
			case squares <- v * v:
			case <-done:
				return
			}
		}
	}()
	var out []int
	for len(out) < n {
		out = append(out, <-squares)
	}
	close(done)
	return out
}
