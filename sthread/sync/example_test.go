package sync_test

import (
	"fmt"

	"github.com/stdbg/stdbg/sthread/sync"
)

// Map replaces sync.Map: under a check each method is a scheduling point,
// so that a Store can run before or after another goroutine's Load or
// Range; outside a check it is a sync.Map.
func ExampleMap() {
	var m sync.Map
	m.Store("a", 1)
	if _, loaded := m.LoadOrStore("a", 2); loaded {
		m.Store("b", 3)
	}
	sum := 0
	m.Range(func(_, v any) bool { sum += v.(int); return true })
	fmt.Println(sum)
	// Output: 4
}
