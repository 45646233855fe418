// Command lottery draws a random slot while a worker refills the prize
// table: when the draw reads the slot the worker is refilling, the winner
// gets nothing. Whether that happens depends on the value drawn as well as
// on the schedule: under stdbg the values come from a generator seeded the
// same way in every execution, so a replay draws the same ones.
package main

import (
	"fmt"
	"math/rand"
	"sync"
)

func main() {
	var mu sync.Mutex
	prizes := []int{10, 20, 30}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range prizes {
			mu.Lock()
			prizes[i] = 0 // being refilled
			mu.Unlock()
			mu.Lock()
			prizes[i] = (i + 1) * 100
			mu.Unlock()
		}
	}()
	slot := rand.Intn(len(prizes))
	mu.Lock()
	won := prizes[slot]
	mu.Unlock()
	if won == 0 {
		panic(fmt.Sprintf("slot %d paid nothing", slot))
	}
	<-done
	fmt.Println("won", won)
}
