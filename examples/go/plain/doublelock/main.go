// Command doublelock locks a mutex it already holds: Stats calls Total,
// which locks the same sync.Mutex again. Go's mutexes are not recursive,
// so the goroutine blocks for ever.
package main

import (
	"fmt"
	"sync"
)

type registry struct {
	mu    sync.Mutex
	items map[string]int
}

func (r *registry) Total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := 0
	for _, v := range r.items {
		t += v
	}
	return t
}

func (r *registry) Stats() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("%d items, total %d", len(r.items), r.Total()) // Total locks r.mu again
}

func main() {
	r := &registry{items: map[string]int{"a": 1, "b": 2}}
	done := make(chan string)
	go func() { done <- r.Stats() }()
	fmt.Println(<-done)
}
