// Command constructs uses every construct goinstr rewrites, correctly: its
// output is the same instrumented or not, and stdbg finds no bug in it.
package main

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

type counter struct {
	sync.Mutex
	n int
}

func (c *counter) add(d int, wg *sync.WaitGroup) {
	defer wg.Done()
	c.Lock()
	c.n += d
	c.Unlock()
}

func sum(out chan<- int, xs ...int) {
	t := 0
	for _, x := range xs {
		t += x
	}
	out <- t
}

type pair struct{ a, b int }

func main() {
	var c counter
	var wg sync.WaitGroup
	wg.Add(3)
	go c.add(1, &wg)
	go c.add(
		2,
		&wg,
	)
	f := c.add
	go f(3, &wg)
	wg.Wait()
	fmt.Println("counter", c.n)

	out := make(chan int, 2)
	xs := []int{1, 2, 3}
	go sum(out, xs...)
	go sum(out, 4, 5)
	a, b := <-out, <-out
	fmt.Println("sums", min(a, b), max(a, b))

	var rw sync.RWMutex
	cond := sync.NewCond(&rw)
	ready := false
	done := make(chan struct{})
	go func() {
		rw.Lock()
		ready = true
		cond.Broadcast()
		rw.Unlock()
		close(done)
	}()
	rw.Lock()
	for !ready {
		cond.Wait()
	}
	rw.Unlock()
	<-done
	_, ok := <-done
	fmt.Println("ready", ready, ok)

	var once sync.Once
	var hits atomic.Int64
	var flag atomic.Bool
	jobs := make(chan pair)
	res := make(chan int, 3)
	for i := 0; i < 3; i++ {
		go func() {
			for p := range jobs {
				once.Do(func() { flag.Store(true) })
				hits.Add(1)
				runtime.Gosched()
				res <- p.a * p.b
			}
		}()
	}
	for i := 1; i <= 3; i++ {
		jobs <- pair{i, i + 1}
	}
	close(jobs)
	var got []int
	for len(got) < 3 {
		got = append(got, <-res)
	}
	sort.Ints(got)
	fmt.Println("products", got, hits.Load(), flag.Load(), len(res), cap(res))

	var seen sync.Map
	seen.Store("a", 1)
	if _, loaded := seen.LoadOrStore("a", 2); loaded {
		seen.Store("b", 3)
	}
	sum := 0
	seen.Range(func(_, v any) bool { sum += v.(int); return true })
	fmt.Println("map", sum)

	quit := make(chan bool)
	vals := make(chan int)
	go func() {
		for i := 0; i < 3; i++ {
			vals <- i
		}
		quit <- true
	}()
	total := 0
loop:
	for {
		select {
		case v := <-vals:
			total += v
		case <-quit:
			break loop
		}
	}
	var v int
	var more bool
	select {
	case v, more = <-vals:
	default:
		v = -1
	}
	buf := make(chan int, 1)
	select {
	case buf <- 7:
	case <-quit:
	}
	fmt.Println("select", total, v, more, <-buf)

	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	child, stop := context.WithCancel(ctx)
	defer stop()
	cancel()
	<-child.Done()
	t := time.NewTimer(time.Hour)
	start := time.Now()
	select {
	case <-time.After(time.Millisecond):
	case <-t.C:
	}
	time.Sleep(time.Millisecond)
	fmt.Println("time", child.Err(), t.Stop(), time.Since(start) > 0)
	funcCases()
	atomics()
}

// funcCases sends function literals from select cases: their bodies are
// instrumented too, and the selects stay selects.
func funcCases() {
	fs := make(chan func() int, 1)
	var mu sync.Mutex
	select {
	case fs <- func() int { mu.Lock(); defer mu.Unlock(); return 41 }:
	case <-time.After(time.Hour):
	}
	n := (<-fs)()
	select {
	case fs <- func() int {
		mu.Lock()
		defer mu.Unlock()
		return n + 1
	}:
	}
	fmt.Println("func cases", (<-fs)())
}
