// The grader's test of ring.go: three nodes, the token goes round twice.
package main

import (
	"fmt"
	"slices"
)

func main() {
	got := Ring(3, 2)
	if want := []int{0, 1, 2, 0, 1, 2}; !slices.Equal(got, want) {
		panic(fmt.Sprintf("Ring(3, 2) = %v, want %v", got, want))
	}
}
