// The grader's test of broker.go: two subscribers; the first reads one
// message and unsubscribes while messages are still being published; the
// second reads everything until the broker closes.
package main

import (
	"fmt"
	"slices"
	"sync"
)

func main() {
	b := NewBroker()
	first, leave := b.Subscribe()
	second, _ := b.Subscribe()
	var wg sync.WaitGroup
	var got []string
	wg.Add(2)
	go func() {
		defer wg.Done()
		<-first
		leave()
		for range first {
			panic("a message arrived after unsubscribing")
		}
	}()
	go func() {
		defer wg.Done()
		for m := range second {
			got = append(got, m)
		}
	}()
	b.Publish("one")
	b.Publish("two")
	b.Close()
	wg.Wait()
	if !slices.Equal(got, []string{"one", "two"}) {
		panic(fmt.Sprintf("the second subscriber got %q, want [one two]", got))
	}
}
