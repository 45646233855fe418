// Command longsetup first streams 1,024 events through a channel, as
// ordinary Go setup code does (over 2,000 transitions), and only then does
// its bug show: two goroutines take two mutexes in opposite orders. Go
// targets get a depth bound that lets the search get past such setup.
package main

import (
	"fmt"
	"sync"
)

func main() {
	events := make(chan int, 16)
	go func() {
		for i := range 1024 {
			events <- i
		}
		close(events)
	}()
	sum := 0
	for e := range events {
		sum += e
	}
	var a, b sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	moved := 0
	go func() {
		defer wg.Done()
		a.Lock()
		b.Lock()
		moved++
		b.Unlock()
		a.Unlock()
	}()
	go func() {
		defer wg.Done()
		b.Lock()
		a.Lock()
		moved++
		a.Unlock()
		b.Unlock()
	}()
	wg.Wait()
	fmt.Println(sum)
}
