package search_test

import (
	"context"
	"fmt"

	"github.com/stdbg/stdbg/engine/search"
)

// A portfolio of DPOR and PCT: DPOR decides, and runs alone first; the
// report of a bug names the member that found it. (Shared in transitions,
// as NewPortfolio does, the search is the same on every machine.)
func ExampleNewPortfolio() {
	p := search.NewPortfolio(
		search.Member{Name: "DPOR", Strategy: search.NewDPOR(), Share: 2, Decides: true},
		search.Member{Name: "PCT (depth 2, seed 42)", Strategy: search.NewPCT(2, 42), Share: 1})
	res, err := search.Explore(context.Background(), counter{}, p, search.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p)
	fmt.Println("found by", res.Bugs[0].By, "after", res.Stats.Executions, "executions; complete:", res.Complete)
	// Output:
	// portfolio of DPOR, PCT (depth 2, seed 42)
	// found by DPOR after 2 executions; complete: false
}

// Knuth's estimate of the executions of an exhaustive search, from random
// probes, before running it; then the search.
func ExampleEstimateTree() {
	est, err := search.EstimateTree(context.Background(), counter{}, search.EstimateOptions{Reduction: search.ReductionNone, Probes: 1000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := search.Explore(context.Background(), counter{}, search.NewDFS(), search.Options{All: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("estimated %.0f executions from %d probes; the search ran %d\n", est.Executions, est.Probes, res.Stats.Executions)
	// Output:
	// estimated 6 executions from 1000 probes; the search ran 6
}
