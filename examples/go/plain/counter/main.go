// Command counter counts hits from several goroutines into a map guarded
// by a mutex, except for one path that updates the total without the lock:
// a data race, which the race detector reports in the schedules where the
// two updates are not ordered. The fix: update total under mu too.
package main

import (
	"fmt"
	"sync"
)

type stats struct {
	mu    sync.Mutex
	hits  map[string]int
	total int
}

func (s *stats) hit(page string) {
	s.mu.Lock()
	s.hits[page]++
	s.mu.Unlock()
	s.total++ // not under the lock
}

func main() {
	s := &stats{hits: map[string]int{}}
	var wg sync.WaitGroup
	for _, p := range []string{"/", "/about"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.hit(p)
		}()
	}
	wg.Wait()
	fmt.Println(s.total, len(s.hits))
}
