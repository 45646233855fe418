package search

import (
	"slices"

	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// linear finds, among the schedules of one Mazurkiewicz trace (the
// executions that run the same events, in any order that keeps program
// order, thread creation and dependent operations in place), one with the
// fewest preemptions, and proves it has the fewest. Every such schedule has
// the trace's length and ends as the trace does, so only the preemptions
// differ.
//
// A preemption is a switch away from a thread that is still enabled. Where
// a thread's next event has all its predecessors in the trace already run,
// it is enabled (the operations that could disable it, being dependent on
// it, are those predecessors). Elsewhere it depends on the state, which
// only an execution shows; but enabledness changes only with dependent
// operations (syncmodel.Dependent: independent operations neither enable
// nor disable each other), so what one execution showed about a thread at
// some point holds at every point where the same operations dependent on
// its pending one have run. Those facts are learned from executions.
//
// The search for a schedule is a shortest path over the downward-closed
// sets of events (with the thread that ran last), a switch costing 1 when
// the thread left is known to be enabled and 0 otherwise: what is not known
// yet counts as disabled. The path found is then a lower bound on the
// preemptions of every schedule of the trace; when it relies on nothing
// unknown it is also their exact number, and minimal. Otherwise running it
// teaches what it relied on, and the search is repeated.
type linear struct {
	ev    []Event
	ids   []int   // dense thread index -> thread id
	th    []int   // ev[i]'s dense thread
	pos   []int   // ev[i]'s index among its thread's events
	seq   [][]int // per dense thread: its events, in program order
	preds [][]int // ev[i]'s predecessors in other threads
	// deps[p][c] lists the events of other threads that are dependent on
	// thread p's operation at its position c (c == len(seq[p]): the
	// operation pending after its last event, once known); nil when not
	// computed yet.
	deps  [][][]int
	final []*syncmodel.Op // per dense thread: the operation pending after its last event, nil unknown
	gone  []bool          // per dense thread: it is not live after its last event
	facts map[linFact]bool

	stride []int // mixed radix of the states: stride[p] = prod over q < p of len(seq[q])+1
	states int   // number of downward-closed sets (the product), 0 when too many
	// key is the failure's key, for the executions that check the trace.
	key string

	// The last shortest path found (solve): its preemptions, its
	// schedule, whether it relied on nothing unknown; solved says the
	// search ran since the last facts were learned, big that it could not
	// (too many states), finished that nothing is left to do with the
	// trace.
	cost     int
	path     schedule.Schedule
	exact    bool
	solved   bool
	big      bool
	finished bool
}

// linFact names what an execution showed: thread p (dense) at position c,
// with the given set of the events dependent on its operation already run
// (a bit set over deps[p][c], as bytes).
type linFact struct {
	p, c int
	d    string
}

// maxLinStates bounds the nodes (downward-closed sets times the thread that
// ran last) of a trace's shortest-path search: past it the trace's
// preemptions are not computed (its lower bound stays 0).
const maxLinStates = 1 << 21

// newLinear prepares the trace of an execution that ended with the failure
// of the given key (its Report's Trace, and Final for the operations still
// pending then).
func newLinear(trace []Event, final []Thread, key string, kind Kind) *linear {
	n := len(trace)
	l := &linear{ev: append([]Event(nil), trace...), key: key, facts: map[linFact]bool{},
		th: make([]int, n), pos: make([]int, n), preds: make([][]int, n)}
	// Dense thread indices in increasing id order, so that the search
	// prefers lower ids as DFS does.
	dense := map[int]int{}
	for i := range l.ev {
		if _, ok := dense[l.ev[i].Step.Thread]; !ok {
			dense[l.ev[i].Step.Thread] = 0
			l.ids = append(l.ids, l.ev[i].Step.Thread)
		}
	}
	slices.Sort(l.ids)
	for p, id := range l.ids {
		dense[id] = p
	}
	l.seq = make([][]int, len(l.ids))
	for i := range l.ev {
		p := dense[l.ev[i].Step.Thread]
		l.th[i], l.pos[i] = p, len(l.seq[p])
		l.seq[p] = append(l.seq[p], i)
	}
	// Predecessors, as TraceKey orders a trace: the creation of a thread
	// before its first event, dependent operations in the order they ran.
	created := map[int]int{}
	creates := 0
	for i := range l.ev {
		t := l.ev[i].Step.Thread
		if l.pos[i] == 0 {
			if j, ok := created[t]; ok {
				l.preds[i] = append(l.preds[i], j)
			}
		}
		for j := 0; j < i; j++ {
			if l.th[j] != l.th[i] && syncmodel.DependentInOrder(l.ev[j].Step.Thread, l.ev[j].Op, t, l.ev[i].Op) {
				l.preds[i] = append(l.preds[i], j)
			}
		}
		if l.ev[i].Op.Kind == syncmodel.ThreadCreate {
			creates++
			created[creates+1] = i
		}
	}
	// A failure other than a deadlock ends the execution at its last step,
	// which therefore comes after every other event.
	if kind != Deadlock && n > 0 {
		l.preds[n-1] = l.preds[n-1][:0]
		for j := 0; j < n-1; j++ {
			if l.th[j] != l.th[n-1] {
				l.preds[n-1] = append(l.preds[n-1], j)
			}
		}
	}
	T := len(l.ids)
	l.deps = make([][][]int, T)
	l.final = make([]*syncmodel.Op, T)
	l.gone = make([]bool, T)
	for p := range T {
		l.deps[p] = make([][]int, len(l.seq[p])+1)
		for c, i := range l.seq[p] {
			l.deps[p][c] = l.dependents(p, l.ev[i].Op)
		}
	}
	for _, t := range final {
		if p, ok := dense[t.ID]; ok {
			l.learnFinal(p, t.Op)
		}
	}
	l.stride = make([]int, T)
	total := 1
	for p := range T {
		l.stride[p] = total
		total *= len(l.seq[p]) + 1
		if total*(T+1) > maxLinStates {
			total = 0
			break
		}
	}
	l.states = total
	return l
}

// causalPast returns the events of trace that happen before its last one
// (program order, thread creation, syncmodel.DependentInOrder), and the
// last one, in the order they ran. An execution that runs only those, in
// that order, reaches the last event in the state it found there: a
// failure that ended the execution (an assertion, a misuse) fails there as
// well, in as few steps as it can in any execution of the trace.
func causalPast(trace []Event) []Event {
	n := len(trace)
	if n == 0 {
		return nil
	}
	creator := map[int]int{} // thread id -> the event that created it
	creates := 0
	for i := range trace {
		if trace[i].Op.Kind == syncmodel.ThreadCreate {
			creates++
			creator[creates+1] = i
		}
	}
	in := make([]bool, n)
	in[n-1] = true
	// Walking back, an event is in if an event in after it depends on it:
	// its own thread's later event, the first event of a thread it
	// created, or a dependent operation of another thread.
	first := map[int]int{} // thread id -> its earliest event in, so far
	first[trace[n-1].Step.Thread] = n - 1
	var ins []int // the events in, after i
	ins = append(ins, n-1)
	for i := n - 2; i >= 0; i-- {
		t := trace[i].Step.Thread
		if _, ok := first[t]; ok {
			in[i] = true
		} else {
			for _, j := range ins {
				u := trace[j].Step.Thread
				if trace[i].Op.Kind == syncmodel.ThreadCreate && creator[u] == i && first[u] == j ||
					syncmodel.DependentInOrder(t, trace[i].Op, u, trace[j].Op) {
					in[i] = true
					break
				}
			}
		}
		if in[i] {
			first[t] = i
			ins = append(ins, i)
		}
	}
	out := make([]Event, 0, len(ins))
	for i := range trace {
		if in[i] {
			out = append(out, trace[i])
		}
	}
	return out
}

// dependents lists the events of other threads than p that are dependent
// on op (by syncmodel.Dependent, or sharing an object), compared without
// the effects the model annotates an operation with in one state.
func (l *linear) dependents(p int, op syncmodel.Op) []int {
	op.Eff = syncmodel.Effect{}
	ds := []int{}
	for j := range l.ev {
		if l.th[j] == p {
			continue
		}
		o := l.ev[j].Op
		o.Eff = syncmodel.Effect{}
		if syncmodel.Dependent(l.ids[p], op, l.ev[j].Step.Thread, o) || syncmodel.SharesObject(op, o) {
			ds = append(ds, j)
		}
	}
	return ds
}

// learnFinal records the operation thread p has pending after its last
// event.
func (l *linear) learnFinal(p int, op syncmodel.Op) {
	if l.final[p] != nil {
		return
	}
	o := op
	l.final[p] = &o
	l.deps[p][len(l.seq[p])] = l.dependents(p, o)
}

// done reports whether event i is in the set of state s.
func (l *linear) done(s []int, i int) bool { return s[l.th[i]] > l.pos[i] }

// ready reports whether event i can run in the set s: its predecessors ran.
func (l *linear) ready(s []int, i int) bool {
	for _, j := range l.preds[i] {
		if !l.done(s, j) {
			return false
		}
	}
	return true
}

// fact returns the key of what is known of thread p at the set s, and false
// when its operation there is not known.
func (l *linear) fact(s []int, p int) (linFact, bool) {
	c := s[p]
	ds := l.deps[p][c]
	if ds == nil {
		return linFact{}, false
	}
	b := make([]byte, (len(ds)+7)/8)
	for k, j := range ds {
		if l.done(s, j) {
			b[k/8] |= 1 << (k % 8)
		}
	}
	return linFact{p: p, c: c, d: string(b)}, true
}

// enabled says whether thread p is enabled at the set s: 1 yes, 0 no, -1
// not known.
func (l *linear) enabled(s []int, p int) int {
	c := s[p]
	if c < len(l.seq[p]) && l.ready(s, l.seq[p][c]) {
		return 1
	}
	if c == len(l.seq[p]) && l.gone[p] {
		return 0
	}
	f, ok := l.fact(s, p)
	if !ok {
		return -1
	}
	if en, ok := l.facts[f]; ok {
		if en {
			return 1
		}
		return 0
	}
	return -1
}

// learn records what an execution of one of the trace's schedules showed
// at the set s: the live threads and whether each was enabled.
func (l *linear) learn(s []int, ts []Thread) {
	live := make([]bool, len(l.ids))
	for i := range ts {
		t := &ts[i]
		p := l.dense(t.ID)
		if p < 0 {
			continue
		}
		live[p] = true
		if s[p] == len(l.seq[p]) {
			l.learnFinal(p, t.Op)
		}
		if f, ok := l.fact(s, p); ok {
			l.facts[f] = t.Enabled
		}
	}
	for p := range l.ids {
		if !live[p] && s[p] == len(l.seq[p]) && s[p] > 0 {
			l.gone[p] = true
		}
	}
}

func (l *linear) dense(id int) int {
	for p, x := range l.ids {
		if x == id {
			return p
		}
	}
	return -1
}

// solve finds a schedule of the trace with the fewest preemptions under
// what is known (the unknown counting as disabled): l.cost is then a lower
// bound on the preemptions of every schedule of the trace, l.path the
// schedule, and l.exact says that it relied on nothing unknown. It returns
// false when the trace has too many states to search.
func (l *linear) solve() bool {
	l.solved = true
	if l.states == 0 {
		return false
	}
	T := len(l.ids)
	W := T + 1 // the thread that ran last: 0..T-1, or T for none
	nodes := l.states * W
	const unseen = 255
	dist := make([]uint8, nodes)
	for i := range dist {
		dist[i] = unseen
	}
	parent := make([]int32, nodes)
	full := 0
	for p := range T {
		full += len(l.seq[p]) * l.stride[p]
	}
	// A 0-1 breadth-first search: a deque of nodes, zero-cost moves in
	// front.
	dq := newDeque()
	start := T // the empty set, nobody ran
	dist[start] = 0
	parent[start] = -1
	dq.pushFront(int32(start))
	s := make([]int, T)
	goal := -1
	popped := make([]bool, nodes)
	var zero []int32
	for !dq.empty() {
		node := int(dq.popFront())
		if popped[node] {
			continue
		}
		popped[node] = true
		st, last := node/W, node%W
		if st == full {
			goal = node
			break
		}
		for p, x := 0, st; p < T; p++ {
			s[p] = x / l.stride[p] % (len(l.seq[p]) + 1)
		}
		cur := int(dist[node])
		// Leaving the thread that ran last costs a preemption if it is
		// known to be enabled here.
		sw := 0
		if last != T && l.enabled(s, last) == 1 {
			sw = 1
		}
		// The thread that ran last first, then by id: ties go to the
		// schedule that keeps the running thread, as DFS does. (Moves
		// that cost nothing go to the front of the deque, so they are
		// pushed in reverse order.)
		zero = zero[:0]
		for k := -1; k < T; k++ {
			q := k
			if k == -1 {
				if last == T {
					continue
				}
				q = last
			} else if q == last {
				continue
			}
			c := s[q]
			if c == len(l.seq[q]) || !l.ready(s, l.seq[q][c]) {
				continue
			}
			w := 0
			if q != last {
				w = sw
			}
			next := (st+l.stride[q])*W + q
			if nd := cur + w; nd < int(dist[next]) && nd < unseen {
				dist[next] = uint8(nd)
				parent[next] = int32(node)
				if w == 0 {
					zero = append(zero, int32(next))
				} else {
					dq.pushBack(int32(next))
				}
			}
		}
		for i := len(zero) - 1; i >= 0; i-- {
			dq.pushFront(zero[i])
		}
	}
	if goal < 0 {
		return false
	}
	l.cost = int(dist[goal])
	var rev []int
	for n := goal; n != start; n = int(parent[n]) {
		rev = append(rev, n)
	}
	l.path = l.path[:0]
	l.exact = true
	for i := range s {
		s[i] = 0
	}
	last := T
	for k := len(rev) - 1; k >= 0; k-- {
		q := rev[k] % W
		if last != T && q != last && l.enabled(s, last) < 0 {
			l.exact = false
		}
		i := l.seq[q][s[q]]
		l.path = append(l.path, l.ev[i].Step)
		s[q]++
		last = q
	}
	return true
}

// deque is a double-ended queue of node numbers.
type deque struct {
	buf        []int32
	head, size int
}

func newDeque() *deque { return &deque{buf: make([]int32, 64)} }

func (d *deque) empty() bool { return d.size == 0 }

func (d *deque) grow() {
	if d.size < len(d.buf) {
		return
	}
	nb := make([]int32, 2*len(d.buf))
	for i := 0; i < d.size; i++ {
		nb[i] = d.buf[(d.head+i)%len(d.buf)]
	}
	d.buf, d.head = nb, 0
}

func (d *deque) pushFront(x int32) {
	d.grow()
	d.head = (d.head - 1 + len(d.buf)) % len(d.buf)
	d.buf[d.head] = x
	d.size++
}

func (d *deque) pushBack(x int32) {
	d.grow()
	d.buf[(d.head+d.size)%len(d.buf)] = x
	d.size++
}

func (d *deque) popFront() int32 {
	x := d.buf[d.head]
	d.head = (d.head + 1) % len(d.buf)
	d.size--
	return x
}
