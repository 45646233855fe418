package main

// FirstSquares returns the squares of 1, 2, ..., n from a pipeline of two
// goroutines, and stops both by closing done, which each checks after
// every value it sends.
func FirstSquares(n int) []int {
	done := make(chan struct{})
	nums := make(chan int)
	go func() {
		defer close(nums)
		for i := 1; ; i++ {
			nums <- i
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	squares := make(chan int)
	go func() {
		defer close(squares)
		for v := range nums {
			squares <- v * v
			select {
			case <-done:
				return
			default:
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
