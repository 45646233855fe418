// The grader's test of cache.go: a goroutine and main ask for key "a" at
// once; loading "a" asks the cache for "b". Each key must be loaded
// exactly once, and every caller must get its value.
package main

import (
	"fmt"
	"sync"
)

func main() {
	var mu sync.Mutex
	loads := map[string]int{}
	var c *Cache
	c = NewCache(func(key string) string {
		mu.Lock()
		loads[key]++
		mu.Unlock()
		if key == "a" {
			return "a+" + c.Get("b")
		}
		return key
	})
	var wg sync.WaitGroup
	got := make([]string, 2)
	wg.Add(1)
	go func() {
		defer wg.Done()
		got[0] = c.Get("a")
	}()
	got[1] = c.Get("a")
	wg.Wait()
	for _, v := range got {
		if v != "a+b" {
			panic(fmt.Sprintf("Get(\"a\") = %q, want \"a+b\"", v))
		}
	}
	if loads["a"] != 1 || loads["b"] != 1 {
		panic(fmt.Sprintf("loads %v: each key must be loaded exactly once", loads))
	}
}
