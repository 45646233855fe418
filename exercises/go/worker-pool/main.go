// The grader's test of pool.go: three jobs on two workers, then a pool
// with a job it must refuse.
package main

import "fmt"

func main() {
	got, err := Squares([]int{1, 2, 3}, 2)
	sum := 0
	for _, v := range got {
		sum += v
	}
	if err != nil || len(got) != 3 || sum != 1+4+9 {
		panic(fmt.Sprintf("Squares([1 2 3], 2) = %v, %v: want the squares of 1, 2, 3 in any order", got, err))
	}
	if _, err := Squares([]int{-1, 2}, 1); err == nil {
		panic("Squares([-1 2], 1) returned no error: a negative job is an error")
	}
}
