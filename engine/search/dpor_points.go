package search

import "slices"

// What DPOR keeps of each scheduling point's threads: whether each is
// there, enabled, and how many choices it offers. A point differs from the
// one before it in a few threads (the one that ran, those its step woke or
// blocked, one created or finished), so that with a thousand threads (the
// goroutines of live timers) a copy of every thread at every point made
// the copy the cost of a step and the path's memory the threads times its
// depth. Instead each thread has a history of its changes along the
// current path: a point's view of a thread is the last change at or
// before it, found by a binary search.

// threadChange is a change of what the points of the current path keep of
// one thread, from point k on.
type threadChange struct {
	k       int32
	choices int32 // Thread.Choices
	present bool  // the thread is live at the point
	enabled bool
}

// nodeThread is what a scheduling point keeps of one of its threads.
type nodeThread struct {
	choices int32
	enabled bool
}

// pointThreads are the histories of the threads along the current path.
type pointThreads struct {
	hist [][]threadChange // hist[id]: the changes of thread id, by point
	// present are the ids of the threads of the last point set, in
	// increasing order; last is that point (-1: none).
	present []int32
	last    int
	scratch []int32 // ids of a point's threads (see set)
	order   []int   // indices of a point's threads sorted by id, when they are not
}

// reset forgets every point.
func (pt *pointThreads) reset() {
	for i := range pt.hist {
		pt.hist[i] = pt.hist[i][:0]
	}
	pt.present, pt.last = pt.present[:0], -1
}

// truncate forgets the points from k on, so that point k-1 is the last one
// set. It looks at every thread that ever had a history: once per
// execution, at the point where it chose anew.
func (pt *pointThreads) truncate(k int) {
	if k > pt.last {
		return
	}
	pt.present = pt.present[:0]
	for id, h := range pt.hist {
		i := len(h)
		for i > 0 && int(h[i-1].k) >= k {
			i--
		}
		h = h[:i]
		pt.hist[id] = h
		if i > 0 && h[i-1].present {
			pt.present = append(pt.present, int32(id))
		}
	}
	pt.last = k - 1
}

// at returns what point k keeps of thread id, if the thread is there.
func (pt *pointThreads) at(k, id int) (nodeThread, bool) {
	if id < 0 || id >= len(pt.hist) {
		return nodeThread{}, false
	}
	h := pt.hist[id]
	// The last change at or before k: i is the first after k.
	i, j := 0, len(h)
	for i < j {
		m := int(uint(i+j) >> 1)
		if int(h[m].k) <= k {
			i = m + 1
		} else {
			j = m
		}
	}
	if i == 0 || !h[i-1].present {
		return nodeThread{}, false
	}
	return nodeThread{choices: h[i-1].choices, enabled: h[i-1].enabled}, true
}

// current returns the latest change of thread id, if any.
func (pt *pointThreads) current(id int) (threadChange, bool) {
	if id >= len(pt.hist) || len(pt.hist[id]) == 0 {
		return threadChange{}, false
	}
	h := pt.hist[id]
	return h[len(h)-1], true
}

// record notes that thread id is c from point k on, unless it already was.
func (pt *pointThreads) record(k, id int, c threadChange) {
	for id >= len(pt.hist) {
		pt.hist = append(pt.hist, nil)
	}
	if cur, ok := pt.current(id); ok && cur.present == c.present && cur.enabled == c.enabled && cur.choices == c.choices {
		return
	}
	c.k = int32(k)
	pt.hist[id] = append(pt.hist[id], c)
}

// set makes the threads of point k those of p, point k-1 being the last
// one set (after truncate(k) if need be). It calls blocked with the
// index in p.Threads of each thread blocked at k that was not blocked at
// k-1 (or that was absent, or ran the step before: ran), and returns the
// largest id at k. The walk merges p's threads with those present at
// k-1, both by id: it reads every thread, and writes only the changes.
func (pt *pointThreads) set(k int, p *Point, ran int, blocked func(i int)) int {
	pt.truncate(k)
	ts := p.Threads
	order := pt.order[:0]
	sorted := true
	for i := range ts {
		sorted = sorted && (i == 0 || ts[i].ID > ts[i-1].ID)
	}
	if !sorted {
		for i := range ts {
			order = append(order, i)
		}
		slices.SortFunc(order, func(a, b int) int { return ts[a].ID - ts[b].ID })
		pt.order = order
	}
	prev := pt.present
	same := len(prev) == len(ts) // the same ids as at k-1 (checked below)
	j := 0
	maxID := 0
	for x := range ts {
		i := x
		if !sorted {
			i = order[x]
		}
		t := &ts[i]
		for j < len(prev) && int(prev[j]) < t.ID {
			// A thread of k-1 that is gone.
			pt.record(k, int(prev[j]), threadChange{})
			j++
		}
		for t.ID >= len(pt.hist) {
			pt.hist = append(pt.hist, nil)
		}
		// The thread's latest change, as record would find it.
		h := pt.hist[t.ID]
		var was threadChange
		if len(h) > 0 {
			was = h[len(h)-1]
		}
		wasThere := j < len(prev) && int(prev[j]) == t.ID && was.present
		if wasThere {
			j++
		} else {
			same = false
		}
		if !t.Enabled && (k == 0 || !wasThere || was.enabled || t.ID == ran) {
			blocked(i)
		}
		c := threadChange{k: int32(k), present: true, enabled: t.Enabled, choices: int32(t.Choices())}
		if len(h) == 0 || !was.present || was.enabled != c.enabled || was.choices != c.choices {
			pt.hist[t.ID] = append(h, c)
		}
		maxID = max(maxID, t.ID)
	}
	for ; j < len(prev); j++ {
		pt.record(k, int(prev[j]), threadChange{})
	}
	if !same {
		ids := pt.scratch[:0]
		for x := range ts {
			i := x
			if !sorted {
				i = order[x]
			}
			ids = append(ids, int32(ts[i].ID))
		}
		pt.scratch, pt.present = pt.present, ids
	}
	pt.last = k
	return maxID
}

// threads calls f with every thread of point k, by id.
func (pt *pointThreads) threads(k int, f func(id int, t nodeThread)) {
	for id := range pt.hist {
		if t, ok := pt.at(k, id); ok {
			f(id, t)
		}
	}
}
