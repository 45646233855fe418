// Command timerstopok is timerstop fixed: since Go 1.23 a timer's channel
// holds no stale value after Stop, so Stop needs no drain before the
// timer is reused.
package main

import (
	"fmt"
	"time"
)

func main() {
	work := make(chan int, 1)
	go func() { work <- 1 }()
	t := time.NewTimer(10 * time.Millisecond)
	select {
	case <-t.C:
		fmt.Println("timer first")
	case v := <-work:
		fmt.Println("work first", v)
	}
	t.Stop() // no drain needed: Stop leaves no value in t.C
	fmt.Println("stopped")
}
