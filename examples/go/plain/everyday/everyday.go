// Package everyday holds correct Go of the shapes found in almost every
// program: buffered channels whose ring wraps around, maps ranged over in
// several goroutines, random numbers, formatting and encoding in workers.
// Every shared access is ordered as Go's memory model asks: go test -race
// never fails them, and neither may stdbg, whose own state (its model of a
// channel's buffer, its generators, its formatting) must stay invisible to
// the race detector.
package everyday

import (
	"encoding/json"
	"fmt"
	"sync"
)

// Sum receives n values from c and adds them up.
func Sum(c <-chan int, n int) int {
	s := 0
	for range n {
		s += <-c
	}
	return s
}

// Weight sums k*v over a map of its own, in the order a range gives.
func Weight(m map[int]int) int {
	w := 0
	for k, v := range m {
		w += k * v
	}
	return w
}

// Point is what the workers encode.
type Point struct{ X, Y int }

// Encode encodes the points of n workers, k each, in parallel, and returns
// the encodings in the order they were made.
func Encode(n, k int) ([][]byte, error) {
	var mu sync.Mutex
	var out [][]byte
	var first error
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range k {
				b, err := json.Marshal(Point{i, j})
				mu.Lock()
				out = append(out, b)
				if err != nil && first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out, first
}

// Labels formats a label in each of n goroutines and collects them by
// index.
func Labels(n int) []string {
	out := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = fmt.Sprintf("worker %d of %d: %v", i, n, []int{i, n})
		}()
	}
	wg.Wait()
	return out
}
