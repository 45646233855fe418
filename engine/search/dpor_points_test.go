package search

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// pointThreads keeps, as changes, what a copy of every point's threads
// kept: along random paths that grow, are cut back to a point and grow
// again, as DPOR's executions do, every point answers for every thread as
// the copy does, and says which threads became blocked.
func TestPointThreadsAgreeWithCopies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var pt pointThreads
	pt.reset()
	var copies [][]Thread // copies[k]: point k's threads
	for round := range 300 {
		// Cut the path back to a random point, then grow it.
		k := 0
		if len(copies) > 0 {
			k = rng.IntN(len(copies) + 1)
		}
		copies = copies[:k]
		for range 1 + rng.IntN(12) {
			var prev []Thread
			if k > 0 {
				prev = copies[k-1]
			}
			p := nextPoint(rng, prev)
			ran := -1
			if k > 0 && len(prev) > 0 {
				ran = prev[rng.IntN(len(prev))].ID
			}
			var got []int
			maxID := pt.set(k, &Point{Depth: k, Threads: p}, ran, func(i int) { got = append(got, p[i].ID) })
			var want []int
			wantMax := 0
			for _, th := range p {
				wantMax = max(wantMax, th.ID)
				if th.Enabled {
					continue
				}
				if q := findThread(prev, th.ID); k > 0 && q != nil && !q.Enabled && th.ID != ran {
					continue
				}
				want = append(want, th.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) || maxID != wantMax {
				t.Fatalf("round %d, point %d: blocked %v (max id %d), want %v (%d)", round, k, got, maxID, want, wantMax)
			}
			copies = append(copies, p)
			k++
		}
		for k, p := range copies {
			for id := range 20 {
				got, ok := pt.at(k, id)
				q := findThread(p, id)
				if ok != (q != nil) || ok && (got.enabled != q.Enabled || int(got.choices) != q.Choices()) {
					t.Fatalf("round %d: point %d, thread %d: %+v %v, want %+v", round, k, id, got, ok, q)
				}
			}
			var ids []int
			pt.threads(k, func(id int, _ nodeThread) { ids = append(ids, id) })
			var want []int
			for _, th := range p {
				want = append(want, th.ID)
			}
			if !slices.Equal(ids, want) {
				t.Fatalf("round %d: point %d has threads %v, want %v", round, k, ids, want)
			}
		}
	}
}

// nextPoint returns the threads of a point after prev's: some finish,
// some start, some change, in increasing id order.
func nextPoint(rng *rand.Rand, prev []Thread) []Thread {
	var p []Thread
	for id := 1; id < 20; id++ {
		q := findThread(prev, id)
		switch {
		case q != nil && rng.IntN(8) == 0:
			continue // finished
		case q == nil && rng.IntN(6) != 0:
			continue // not (yet) there
		case q != nil && rng.IntN(3) != 0:
			p = append(p, *q)
			continue
		}
		p = append(p, Thread{ID: id, Enabled: rng.IntN(2) == 0, Alternatives: rng.IntN(3)})
	}
	return p
}
