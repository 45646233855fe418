// Command timerstop reuses a timer after a select and drains it with the
// old idiom "if !t.Stop() { <-t.C }". When the select took the timer's
// case, the value was already received: Stop reports false and the drain
// blocks for ever. timerstopok is the fixed version.
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
	if !t.Stop() {
		<-t.C // blocks for ever when the timer case was taken
	}
	t.Reset(time.Second)
	fmt.Println("reset")
}
