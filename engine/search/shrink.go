package search

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/stdbg/stdbg/model/schedule"
)

// trial is one actual execution of a schedule: what ran and how it ended.
type trial struct {
	sched schedule.Schedule // every transition executed
	out   *Outcome          // how it ended (a copy); nil if cut at the limit
	pre   int               // preemptions in sched
	// flags[k] describes step k of sched: whether it is a preemption and
	// whether it differs from the step the default policy would take.
	flags []uint8
}

const (
	flagPreempt uint8 = 1 << iota // a switch away from a thread still enabled
	flagDeviate                   // not the default policy's step
)

// errBudget stops a shrinker when its budget of executions is spent or its
// context is done. It never escapes the package.
var errBudget = errors.New("minimisation budget exhausted")

// shrinker is the state of the shrinking phase of Minimise: a best trial of
// the bug and a budget of executions to spend on candidates trying to beat
// it.
type shrinker struct {
	ctx   context.Context
	ex    Executor
	key   string
	left  int64 // executions left in the budget
	stats Stats

	progress func(Stats) // called now and then (MinimiseOptions.Progress)
	start    time.Time
	shown    time.Time

	// linWork counts the nodes the proof's shortest-path searches went
	// through (maxLinWork).
	linWork int64

	// observe, if not nil, is shown every scheduling point of the
	// executions run (execute): the number of steps run and the threads.
	observe func(k int, ts []Thread)

	best     *trial
	accepted int                 // candidates that beat the best
	tried    map[uint64]struct{} // hashes of the candidates run
	buf      schedule.Schedule   // scratch for candidates
}

// better reports whether t is a run of the bug that beats s.best.
func (s *shrinker) better(t *trial) bool {
	if t == nil || t.out == nil || !t.out.Kind.IsBug() || t.out.Key() != s.key {
		return false
	}
	l, bl := len(t.sched), len(s.best.sched)
	return l < bl || (l == bl && t.pre < s.best.pre)
}

// execute starts an execution and runs cand, then the default policy (as
// Replay does), for at most limit transitions (<= 0: no limit). If lenient,
// a step that does not fit is adapted when its thread can run (a missing
// value becomes 0, an out-of-range one the largest, an unwanted one is
// dropped) and skipped when it cannot (the thread is absent or blocked);
// otherwise it ends the run with a Diverged outcome, as in Replay. It
// returns errBudget, without running anything, if the budget is spent or the
// context done, and errBudget too if the context is done during the run.
func (s *shrinker) execute(cand schedule.Schedule, limit int, lenient bool) (t *trial, err error) {
	if s.left <= 0 || s.ctx.Err() != nil {
		return nil, errBudget
	}
	var e Execution
	if ps, ok := s.ex.(PrefixStarter); ok {
		// The steps the candidate shares with the execution before it
		// (often most of them: candidates of one schedule) may be run
		// in one go. Every one of them is a step that execution took
		// from the same state, so it fits here too, leniently or not.
		prefix := cand
		if limit > 0 && len(prefix) > limit {
			prefix = prefix[:limit]
		}
		e, err = ps.StartPrefix(prefix)
	} else {
		e, err = s.ex.Start()
	}
	if errors.Is(err, ErrStepCut) {
		return nil, errBudget
	}
	if err != nil {
		return nil, fmt.Errorf("execution %d, step 0: starting the program: %w", s.stats.Executions+1, err)
	}
	s.left--
	s.stats.Executions++
	n := s.stats.Executions
	if s.progress != nil && time.Since(s.shown) >= progressEvery {
		s.shown = time.Now()
		st := s.stats
		st.Elapsed = time.Since(s.start)
		if s.best != nil {
			st.Depth = len(s.best.sched)
		}
		s.progress(st)
	}
	defer func() {
		if cerr := e.Close(); cerr != nil && err == nil {
			t, err = nil, fmt.Errorf("execution %d: closing: %w", n, cerr)
		}
	}()
	t = &trial{sched: make(schedule.Schedule, 0, len(cand))}
	done := s.ctx.Done()
	prev, i := 0, 0 // i: the next step of cand
	for k := 0; ; k++ {
		if o := e.Ended(); o != nil {
			oc := *o
			t.out = &oc
			return t, nil
		}
		if limit > 0 && k >= limit {
			s.stats.MaxDepthHit++
			return t, nil
		}
		select {
		case <-done:
			return nil, errBudget
		default:
		}
		ts := e.Threads()
		if s.observe != nil {
			s.observe(k, ts)
		}
		def, ok := defaultStep(ts, prev)
		if !ok {
			return nil, fmt.Errorf("execution %d, %w", n, stuckError(k+1))
		}
		st := def
		for ; i < len(cand); i++ {
			c := cand[i]
			j, m := fit(ts, c)
			if m == fits {
				st = c
				i++
				break
			}
			if !lenient {
				t.out = &Outcome{Kind: Diverged, Message: fmt.Sprintf("step %d: %s", k+1, m.explain(ts, j, c)), Step: k}
				return t, nil
			}
			if c, ok := adapt(ts, j, m, c); ok {
				st = c
				i++
				break
			}
		}
		var f uint8
		if k > 0 && st.Thread != prev && enabled(ts, prev) {
			f |= flagPreempt
			t.pre++
		}
		if st != def {
			f |= flagDeviate
		}
		if err := e.Step(st); err != nil {
			if errors.Is(err, ErrStepCut) {
				// The budget ran out during the step.
				return nil, errBudget
			}
			return nil, fmt.Errorf("execution %d, step %d (thread %v): %w", n, k+1, st, err)
		}
		s.stats.Transitions++
		t.sched = append(t.sched, st)
		t.flags = append(t.flags, f)
		prev = st.Thread
	}
}

// adapt makes a step that fit(ts, c) = j, m found not to fit into one that
// does, if its thread can run.
func adapt(ts []Thread, j int, m misfit, c schedule.Step) (schedule.Step, bool) {
	switch m {
	case unwanted:
		c.Choice = schedule.NoChoice
	case missingChoice:
		c.Choice = 0
	case outOfRange:
		c.Choice = min(max(c.Choice, 0), ts[j].Choices()-1)
	default:
		return c, false
	}
	return c, true
}

// enabled reports whether thread id is live and enabled in ts.
func enabled(ts []Thread, id int) bool {
	for i := range ts {
		if ts[i].ID == id {
			return ts[i].Enabled
		}
	}
	return false
}

// eval runs a candidate, leniently and cut at the best's length (a longer
// run cannot beat it). It returns nil, without running it, if the same
// candidate was run before: it did not beat the best then, so it cannot
// now that the best is at least as good.
func (s *shrinker) eval(cand schedule.Schedule) (*trial, error) {
	h := fnv.New64a()
	var b [16]byte
	for _, st := range cand {
		binary.LittleEndian.PutUint64(b[:8], uint64(st.Thread))
		binary.LittleEndian.PutUint64(b[8:], uint64(st.Choice))
		h.Write(b[:])
	}
	sum := h.Sum64()
	if _, ok := s.tried[sum]; ok {
		return nil, nil
	}
	if s.tried == nil {
		s.tried = make(map[uint64]struct{})
	}
	s.tried[sum] = struct{}{}
	return s.execute(cand, len(s.best.sched), true)
}

// try evaluates a candidate and makes it the best if it beats it.
func (s *shrinker) try(cand schedule.Schedule) (bool, error) {
	t, err := s.eval(cand)
	if err != nil || !s.better(t) {
		return false, err
	}
	s.best = t
	s.accepted++
	return true, nil
}

// join concatenates parts into the scratch candidate buffer.
func (s *shrinker) join(parts ...schedule.Schedule) schedule.Schedule {
	s.buf = s.buf[:0]
	for _, p := range parts {
		s.buf = append(s.buf, p...)
	}
	return s.buf
}

// shrink runs the passes until none improves the best (a fixpoint) or the
// budget is spent. Every pass only replaces the best by a candidate that
// was run and beat it, so the best only decreases, and the loop ends.
func (s *shrinker) shrink() error {
	passes := []func() error{s.truncate, s.trimBlocks, s.removeChunks, s.reorder}
	for {
		before := s.accepted
		for _, pass := range passes {
			if err := pass(); err != nil {
				if errors.Is(err, errBudget) {
					return nil
				}
				return err
			}
		}
		if s.accepted == before {
			return nil
		}
	}
}

// truncate tries, for every step where the best deviates from the default
// policy, the prefix before that step: the default policy then takes over
// at that point. (Cutting the schedule where it follows the default policy
// changes nothing.) It runs them all and keeps the best run, since a longer
// prefix may lead to a shorter execution.
func (s *shrinker) truncate() error {
	base := s.best
	var win *trial
	for k := range base.sched {
		if base.flags[k]&flagDeviate == 0 {
			continue
		}
		t, err := s.eval(base.sched[:k])
		if err != nil {
			return err
		}
		if s.better(t) && (win == nil || len(t.sched) < len(win.sched) ||
			(len(t.sched) == len(win.sched) && t.pre < win.pre)) {
			win = t
		}
	}
	if win != nil {
		s.best = win
		s.accepted++
	}
	return nil
}

// block is a maximal run [a, b) of steps of one thread.
type block struct{ a, b int }

func blocksOf(sc schedule.Schedule) []block {
	var bs []block
	for i := 0; i < len(sc); {
		j := i + 1
		for j < len(sc) && sc[j].Thread == sc[i].Thread {
			j++
		}
		bs = append(bs, block{i, j})
		i = j
	}
	return bs
}

// trimBlocks tries to remove each block of the best, or its end, or its
// beginning, the larger cuts first: a thread often only needs to get a few
// steps further before the others run, or not to run at all.
func (s *shrinker) trimBlocks() error {
	for bi := 0; ; {
		sc := s.best.sched
		bs := blocksOf(sc)
		if bi >= len(bs) {
			return nil
		}
		a, b := bs[bi].a, bs[bi].b
		var ok bool
		var err error
		for j := a; j < b && !ok && err == nil; j++ { // remove [j, b)
			ok, err = s.try(s.join(sc[:j], sc[b:]))
		}
		for j := b - 1; j > a && !ok && err == nil; j-- { // remove [a, j)
			ok, err = s.try(s.join(sc[:a], sc[j:]))
		}
		if err != nil {
			return err
		}
		if !ok {
			bi++
		}
	}
}

// removeChunks is delta debugging's deletion: it tries to remove chunks of
// half the length of the best, then a quarter, and so on down to single
// steps, at aligned offsets.
func (s *shrinker) removeChunks() error {
	for size := len(s.best.sched) / 2; size >= 1; size /= 2 {
		for i := 0; i < len(s.best.sched); {
			sc := s.best.sched
			ok, err := s.try(s.join(sc[:i], sc[min(i+size, len(sc)):]))
			if err != nil {
				return err
			}
			if !ok {
				i += size
			}
		}
	}
	return nil
}

// reorder tries to remove the preemptions of the best without making it
// longer. At each preemption, a switch from thread t (still enabled) to
// another thread, it tries to let t continue: moving t's next step, then its
// whole next block, back to the switch; then to postpone the preempted
// block of t to just before t's next block; then to swap the blocks on
// either side of the switch.
func (s *shrinker) reorder() error {
restart:
	sc := s.best.sched
	bs := blocksOf(sc)
	for bi := 1; bi < len(bs); bi++ {
		p := bs[bi].a
		if s.best.flags[p]&flagPreempt == 0 {
			continue
		}
		t := sc[p-1].Thread
		prevA := bs[bi-1].a
		var cands []schedule.Schedule
		if bj := nextBlockOf(sc, bs, bi, t); bj >= 0 {
			c, d := bs[bj].a, bs[bj].b
			cands = append(cands,
				concat(sc[:p], sc[c:c+1], sc[p:c], sc[c+1:]), // t's next step
				concat(sc[:p], sc[c:d], sc[p:c], sc[d:]),     // t's next block
				concat(sc[:prevA], sc[p:c], sc[prevA:p], sc[c:]))
		}
		cands = append(cands, concat(sc[:prevA], sc[p:bs[bi].b], sc[prevA:p], sc[bs[bi].b:]))
		for _, c := range cands {
			ok, err := s.try(c)
			if err != nil {
				return err
			}
			if ok {
				goto restart
			}
		}
	}
	return nil
}

// nextBlockOf returns the index of the first block after bi of thread t,
// -1 if none.
func nextBlockOf(sc schedule.Schedule, bs []block, bi, t int) int {
	for j := bi + 1; j < len(bs); j++ {
		if sc[bs[j].a].Thread == t {
			return j
		}
	}
	return -1
}

func concat(parts ...schedule.Schedule) schedule.Schedule {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	r := make(schedule.Schedule, 0, n)
	for _, p := range parts {
		r = append(r, p...)
	}
	return r
}
