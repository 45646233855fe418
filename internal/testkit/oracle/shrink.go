package oracle

// Shrink returns a smaller program for which keep still holds: it removes
// threads (with the operation that starts each), operations (or keeps only
// the body of an if, a repeat or a once), select cases, default cases,
// unused objects, the race detector and the memory build, and lowers
// durations and counts, one change at a time, as long as a change keeps
// keep true; it stops after maxTries calls of keep. p itself is not
// changed.
func Shrink(p *Program, keep func(*Program) bool, maxTries int) *Program {
	best := p.Clone()
	tries := 0
	for {
		improved := false
		for _, c := range candidates(best) {
			if tries >= maxTries {
				return best
			}
			if c.Check() != nil {
				continue
			}
			tries++
			if keep(c) {
				best, improved = c, true
				break
			}
		}
		if !improved {
			return best
		}
	}
}

// candidates are the programs one change smaller than p, the biggest
// changes first.
func candidates(p *Program) []*Program {
	var cs []*Program
	for k := len(p.Threads) - 1; k >= 1; k-- {
		cs = append(cs, removeThread(p, k))
	}
	for k := range p.Threads {
		for _, path := range opPaths(p.Threads[k].Ops, nil) {
			op := opAt(p.Threads[k].Ops, path)
			switch op.Code {
			case "go", "godetach", "afterfunc":
				continue // removed with their thread
			}
			q := p.Clone()
			removeOp(&q.Threads[k].Ops, path, false)
			cs = append(cs, q)
			if len(op.Body) > 0 {
				q := p.Clone()
				removeOp(&q.Threads[k].Ops, path, true)
				cs = append(cs, q)
			}
			for i := range op.Cases {
				q := p.Clone()
				o := opAt(q.Threads[k].Ops, path)
				o.Cases = append(o.Cases[:i:i], o.Cases[i+1:]...)
				cs = append(cs, q)
			}
			if op.Default {
				q := p.Clone()
				opAt(q.Threads[k].Ops, path).Default = false
				cs = append(cs, q)
			}
			if lowerable(op.Code) && op.Val > 0 {
				q := p.Clone()
				opAt(q.Threads[k].Ops, path).Val--
				cs = append(cs, q)
			}
		}
	}
	used := map[string]bool{}
	for _, t := range p.Threads {
		walk(t.Ops, func(op *Op) error {
			used[op.Obj] = true
			for _, c := range op.Cases {
				used[c.Obj] = true
			}
			return nil
		})
	}
	for _, o := range p.Objects {
		used[o.Ref] = true
	}
	for i, o := range p.Objects {
		if !used[o.Name] {
			q := p.Clone()
			q.Objects = append(q.Objects[:i:i], q.Objects[i+1:]...)
			cs = append(cs, q)
		}
	}
	if p.Races {
		q := p.Clone()
		q.Races = false
		cs = append(cs, q)
	}
	if p.Memory {
		q := p.Clone()
		q.Memory = false
		cs = append(cs, q)
	}
	return cs
}

// lowerable codes have a duration or a count in Val that may be lowered.
func lowerable(code string) bool {
	switch code {
	case "sleep", "timer", "afterfunc", "reset", "repeat", "ctx":
		return true
	}
	return false
}

// opPaths lists the paths (indices from the thread's list down through
// bodies) of every operation of ops.
func opPaths(ops []Op, prefix []int) [][]int {
	var ps [][]int
	for i := range ops {
		p := append(append([]int(nil), prefix...), i)
		ps = append(ps, p)
		ps = append(ps, opPaths(ops[i].Body, p)...)
	}
	return ps
}

func opAt(ops []Op, path []int) *Op {
	op := &ops[path[0]]
	for _, i := range path[1:] {
		op = &op.Body[i]
	}
	return op
}

// removeOp removes the operation at path from *ops, or replaces it by its
// body if inline.
func removeOp(ops *[]Op, path []int, inline bool) {
	for len(path) > 1 {
		ops = &(*ops)[path[0]].Body
		path = path[1:]
	}
	i := path[0]
	var repl []Op
	if inline {
		repl = (*ops)[i].Body
	}
	rest := append(append([]Op(nil), repl...), (*ops)[i+1:]...)
	*ops = append((*ops)[:i:i], rest...)
}

// removeThread removes thread k, the threads it starts, and the
// operations that start, join or detach them.
func removeThread(p *Program, k int) *Program {
	q := p.Clone()
	gone := map[int]bool{k: true}
	for changed := true; changed; {
		changed = false
		for t := range q.Threads {
			if !gone[t] {
				continue
			}
			walk(q.Threads[t].Ops, func(op *Op) error {
				if (op.Code == "go" || op.Code == "godetach" || op.Code == "afterfunc") && !gone[op.Thread] {
					gone[op.Thread], changed = true, true
				}
				return nil
			})
		}
	}
	// New numbers of the threads kept.
	num := map[int]int{}
	var threads []Thread
	for t := range q.Threads {
		if !gone[t] {
			num[t] = len(threads)
			threads = append(threads, q.Threads[t])
		}
	}
	for t := range threads {
		threads[t].Ops = dropThreadOps(threads[t].Ops, gone, num)
	}
	q.Threads = threads
	return q
}

func dropThreadOps(ops []Op, gone map[int]bool, num map[int]int) []Op {
	var out []Op
	for _, op := range ops {
		switch op.Code {
		case "go", "godetach", "afterfunc", "join", "detach":
			if gone[op.Thread] {
				continue
			}
			op.Thread = num[op.Thread]
		}
		op.Body = dropThreadOps(op.Body, gone, num)
		if op.Body == nil && hasBody(op.Code) {
			op.Body = []Op{}
		}
		out = append(out, op)
	}
	return out
}
