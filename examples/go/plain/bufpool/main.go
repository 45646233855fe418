// Command bufpool formats lines in goroutines with buffers from a
// sync.Pool. The program is correct, but a pool is not modelled: what Get
// returns (a buffer Put before, or a new one) depends on the garbage
// collector and on which processor runs, which stdbg does not explore, so
// its search is exhaustive over the other operations only, and says so.
package main

import (
	"bytes"
	"fmt"
	"sync"
)

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func format(n int) string {
	b := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(b)
	b.Reset()
	fmt.Fprintf(b, "line %d", n)
	return b.String()
}

func main() {
	var wg sync.WaitGroup
	lines := make([]string, 2)
	for i := range lines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lines[i] = format(i)
		}()
	}
	wg.Wait()
	fmt.Println(lines)
}
