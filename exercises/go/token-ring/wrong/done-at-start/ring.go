package main

import "sync"

// Ring passes a token round n nodes, rounds times, and returns the order
// in which the nodes held it. The token carries the number of hops made so
// far; the node that makes the last one closes every link, which ends each
// node's loop, and Ring waits for the nodes to end before it returns the
// trace.
func Ring(n, rounds int) []int {
	links := make([]chan int, n) // links[i] carries the token to node i
	for i := range links {
		links[i] = make(chan int)
	}
	var trace []int
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			wg.Done() // this node is running
			for hops := range links[i] {
				trace = append(trace, i) // only the token's holder touches trace
				if hops+1 == n*rounds {
					for _, l := range links {
						close(l)
					}
					continue
				}
				links[(i+1)%n] <- hops + 1
			}
		}()
	}
	links[0] <- 0
	wg.Wait() // every node has ended
	return trace
}
