package rand_test

import (
	"fmt"

	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/math/rand"
)

// Under a check every execution draws the same values (the seed is
// sthread.RandSeedEnv's, 1 by default): the random numbers are part of
// what the schedule determines, and a schedule replays with them.
func ExampleIntn() {
	var drawn []int
	_, err := sthread.Explore(func() {
		var mu sthread.Mutex
		turns := 0
		sthread.Go(func() { mu.Lock(); turns++; mu.Unlock() })
		mu.Lock()
		turns++
		drawn = append(drawn, rand.Intn(100))
		mu.Unlock()
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(drawn) > 1, drawn[0] == drawn[len(drawn)-1])
	// Output: true true
}
