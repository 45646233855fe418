package rand_test

import (
	"fmt"

	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/math/rand/v2"
)

// Under a check N draws from the execution's generator: each execution
// draws the same value, and outside a check N is math/rand/v2's.
func ExampleN() {
	var drawn []int
	_, err := sthread.Explore(func() {
		var mu sthread.Mutex
		turns := 0
		sthread.Go(func() { mu.Lock(); turns++; mu.Unlock() })
		mu.Lock()
		turns++
		drawn = append(drawn, rand.N(1000))
		mu.Unlock()
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(drawn) > 1, drawn[0] == drawn[len(drawn)-1], rand.N(1))
	// Output: true true 0
}
