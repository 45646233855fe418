package main

// FirstSquares returns the squares of 1, 2, ..., n from a pipeline of two
// goroutines. When it has what it needs, it closes the channels it reads
// from: the goroutines writing to them then stop.
func FirstSquares(n int) []int {
	nums := make(chan int)
	go func() {
		for i := 1; ; i++ {
			nums <- i
		}
	}()
	squares := make(chan int)
	go func() {
		for v := range nums {
			squares <- v * v
		}
	}()
	var out []int
	for len(out) < n {
		out = append(out, <-squares)
	}
	close(squares) // tell the squarer to stop
	close(nums)    // and the generator
	return out
}
