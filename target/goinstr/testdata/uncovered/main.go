// Command uncovered uses what goinstr does not instrument, next to what it
// does: Instrument must warn about each, one line each.
package main

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
)

func main() {
	var n int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		atomic.AddInt64(&n, 1)
	}()
	wg.Wait()
	c := reflect.MakeChan(reflect.TypeOf(make(chan int)), 1)
	fmt.Println(atomic.LoadInt64(&n), c.Cap())
}
