// The grader's test of config.go: two goroutines and main ask for the
// configuration at once.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Settings is the program's configuration.
type Settings struct {
	Name    string
	Workers int
}

// loads counts the loads begun, loaded those finished. Both are atomics,
// operations the checker sees: a caller that checks loaded when Config
// has returned is ordered against the end of every load, so that the
// search tries the caller before and after it, and a Config that returns
// before the load it waits for is over, or that lets a second load start,
// is caught in the schedule where it happens.
var loads, loaded atomic.Int32

// load reads the configuration: slow, and it must run once only.
func load() *Settings {
	loads.Add(1)
	s := &Settings{}
	s.Name = "pool"
	s.Workers = 4
	loaded.Add(1)
	return s
}

// ask is one caller of Config: what it gets must be loaded already.
func ask() *Settings {
	s := Config()
	if loaded.Load() == 0 {
		panic("Config returned before the configuration was loaded")
	}
	return s
}

func main() {
	var wg sync.WaitGroup
	got := make([]*Settings, 3)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = ask()
		}()
	}
	got[2] = ask()
	wg.Wait()
	for _, s := range got {
		if s == nil || s.Workers != 4 {
			panic("Config returned a configuration that is not loaded yet")
		}
		if s != got[0] {
			panic("two callers of Config got different configurations")
		}
	}
	if n := loads.Load(); n != 1 {
		panic(fmt.Sprintf("load ran %d times: it must run once", n))
	}
}
