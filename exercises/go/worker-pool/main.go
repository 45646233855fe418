// The grader's test of pool.go: three jobs on two workers.
package main

import "fmt"

func main() {
	got := Squares([]int{1, 2, 3}, 2)
	sum := 0
	for _, v := range got {
		sum += v
	}
	if len(got) != 3 || sum != 1+4+9 {
		panic(fmt.Sprintf("Squares returned %v: want the squares of 1, 2, 3 in any order", got))
	}
}
