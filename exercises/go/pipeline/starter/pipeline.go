package main

// FirstSquares returns the squares of 1, 2, ..., n, computed by a pipeline
// of two goroutines: one generates 1, 2, 3, ... without end, the other
// squares what it receives. FirstSquares takes the first n squares, then
// stops both goroutines: none may be left blocked when it returns.
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
	return out
}
