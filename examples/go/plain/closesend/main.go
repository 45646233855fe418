// Command closesend closes a channel while a producer may still send on
// it: the producer panics with "send on closed channel" when the close
// wins. The owner of a channel (its only sender) should close it.
package main

import "fmt"

func main() {
	events := make(chan string, 4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range events {
			fmt.Println(e)
		}
	}()
	go func() {
		events <- "late event" // may run after the close below
	}()
	events <- "first event"
	close(events)
	<-done
}
