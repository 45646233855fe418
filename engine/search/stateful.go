package search

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// State identifies the program state at a scheduling point, for stateful
// search (Options.Visited, Options.Graph).
type State struct {
	// Hash is the state's fingerprint: two scheduling points with the same
	// hash are taken to be the same state.
	Hash uint64
	// Progress reports that the program marked progress in the transition
	// that led to this point (stdbg_progress, sthread.Progress).
	Progress bool
	// Props are the values of the program's named propositions here, in
	// the order the program registered them.
	Props []Prop
}

// Prop is the value of a named proposition.
type Prop struct {
	Name  string
	Value bool
}

// FormatProps writes propositions' values as reports show them:
// "r=1 cs=0".
func FormatProps(ps []Prop) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		v := 0
		if p.Value {
			v = 1
		}
		fmt.Fprintf(&b, "%s=%d", p.Name, v)
	}
	return b.String()
}

// Stateful is implemented by executions that can identify the program
// state at their current scheduling point. Stateful search needs it.
type Stateful interface {
	// State returns the state at the current scheduling point, and false
	// when the runtime does not report states.
	State() (State, bool)
}

// Graph is the state graph a stateful exploration builds
// (Options.Graph): every distinct state met, with the transitions
// executed from it. Node 0 is the initial state. Livelock detection and
// LTL checking work on it once the exploration is complete.
type Graph struct {
	Nodes []Node
	// Names are the propositions' names, in the order of Node.Props.
	Names []string

	index map[uint64]int
}

// Node is a state of a Graph.
type Node struct {
	Hash uint64
	// Depth is the least depth at which the state was reached.
	Depth int
	// Enabled are the threads enabled in the state, ascending.
	Enabled []int
	// Props are the propositions' values, in the order of Graph.Names.
	Props []bool
	// Edges are the transitions executed from the state (all of them,
	// once the exploration is complete and the state was not cut).
	Edges []Edge
	// End is how the program ended in this state (exit, deadlock, ...),
	// nil for a scheduling point.
	End *Outcome
	// Cut reports that the depth bound stopped the exploration here, so
	// the state's transitions are not known.
	Cut bool
}

// Edge is one transition of a Graph.
type Edge struct {
	Step schedule.Step
	To   int
	// Progress reports that the program marked progress in the
	// transition.
	Progress bool
	// Op names the operation performed, for reports.
	Op string
}

// node returns the id of the node with hash h, adding it if needed.
func (g *Graph) node(h uint64, depth int) (id int, added bool) {
	if g.index == nil {
		g.index = make(map[uint64]int)
	}
	if id, ok := g.index[h]; ok {
		return id, false
	}
	id = len(g.Nodes)
	g.index[h] = id
	g.Nodes = append(g.Nodes, Node{Hash: h, Depth: depth})
	return id, true
}

// addEdge records the transition from→to by step, once.
func (g *Graph) addEdge(from int, e Edge) {
	n := &g.Nodes[from]
	for _, x := range n.Edges {
		if x.Step == e.Step {
			return
		}
	}
	n.Edges = append(n.Edges, e)
}

// stateful is the explorer's state for Options.Visited and Options.Graph.
type stateful struct {
	depth map[uint64]int // least depth each state was met at
	graph *Graph
	// anyDepth prunes at every state already explored, whatever the
	// depth it was explored at. Without it, a state met again at a
	// lesser depth is explored again, so that the depth bound cuts its
	// continuations no sooner than on the shortest path to it: with a
	// bound that never cuts, that exploration finds nothing new, and
	// it can multiply the executions (errAnyDepthCut).
	anyDepth bool

	cur      uint64 // the state of the current scheduling point
	curID    int    // its graph node
	havePrev bool   // an edge from the previous point is under way
	prevID   int
	prevStep schedule.Step
	prevOp   string
}

// reset starts an execution.
func (s *stateful) reset() { s.havePrev = false }

// visit handles the scheduling point at depth k of an execution whose
// prefix has length plen. It reports whether the execution must stop
// because the state was already explored at a depth no greater than k.
// fresh reports that the point is beyond what was explored before (so
// it is subject to pruning).
func (s *stateful) visit(st State, ts []Thread, k int, fresh bool, stats *Stats) (prune bool) {
	s.cur = st.Hash
	if s.graph != nil {
		id, added := s.graph.node(st.Hash, k)
		if added {
			n := &s.graph.Nodes[id]
			for _, t := range ts {
				if t.Enabled {
					n.Enabled = append(n.Enabled, t.ID)
				}
			}
			n.Props = s.props(st.Props)
		}
		if s.havePrev {
			s.graph.addEdge(s.prevID, Edge{Step: s.prevStep, To: id, Progress: st.Progress, Op: s.prevOp})
		}
		s.curID = id
	}
	s.havePrev = false
	if !fresh {
		return false
	}
	if d, ok := s.depth[st.Hash]; ok && (d <= k || s.anyDepth) {
		stats.Revisits++
		return true
	} else if !ok {
		stats.Visited++
	}
	s.depth[st.Hash] = k
	if s.graph != nil {
		s.graph.Nodes[s.curID].Depth = k
	}
	return false
}

// props maps the point's propositions onto the graph's names, adding new
// names as they appear.
func (s *stateful) props(ps []Prop) []bool {
	g := s.graph
	for _, p := range ps {
		found := false
		for _, n := range g.Names {
			if n == p.Name {
				found = true
				break
			}
		}
		if !found {
			g.Names = append(g.Names, p.Name)
		}
	}
	out := make([]bool, len(g.Names))
	for _, p := range ps {
		for i, n := range g.Names {
			if n == p.Name {
				out[i] = p.Value
			}
		}
	}
	return out
}

// step records that step is taken from the current point.
func (s *stateful) step(step schedule.Step, op syncmodel.Op) {
	if s.graph == nil {
		return
	}
	s.havePrev, s.prevID, s.prevStep, s.prevOp = true, s.curID, step, op.API.String()
	if op.API == syncmodel.APINone {
		s.prevOp = op.Kind.String()
	}
}

// cut marks the current point as cut by the depth bound.
func (s *stateful) cut() {
	if s.graph != nil {
		s.graph.Nodes[s.curID].Cut = true
	}
}

// ended records the end of an execution after the last step: a terminal
// node per outcome, reached by that step.
func (s *stateful) ended(o *Outcome, k int) {
	if s.graph == nil || !s.havePrev {
		return
	}
	// The propositions keep the values they had before the end: ends
	// with different values are different states.
	props := append([]bool(nil), s.graph.Nodes[s.prevID].Props...)
	h := fnv.New64a()
	h.Write([]byte("end\x00" + o.Key()))
	for _, v := range props {
		if v {
			h.Write([]byte{1})
		} else {
			h.Write([]byte{0})
		}
	}
	id, added := s.graph.node(h.Sum64(), k)
	if added {
		oc := *o
		s.graph.Nodes[id].End = &oc
		s.graph.Nodes[id].Props = props
	}
	s.graph.addEdge(s.prevID, Edge{Step: s.prevStep, To: id, Op: s.prevOp})
	s.havePrev = false
}

// leastDepths sets the Depth of every state of the graph that is not an
// end to its distance from the initial state. A search that explores a
// state met again at a lesser depth (not anyDepth) and that the depth
// bound never cut records that distance, as each state's least depth
// propagates to its successors; one that prunes at any depth records
// the depth of the first path to it, which this corrects. (An end's
// depth is that of the first execution that reached it, in either.)
func (g *Graph) leastDepths() {
	if len(g.Nodes) == 0 {
		return
	}
	dist := make([]int, len(g.Nodes))
	for i := range dist {
		dist[i] = -1
	}
	dist[0] = 0
	queue := []int{0}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, e := range g.Nodes[id].Edges {
			if dist[e.To] < 0 {
				dist[e.To] = dist[id] + 1
				queue = append(queue, e.To)
			}
		}
	}
	for i := range g.Nodes {
		if n := &g.Nodes[i]; n.End == nil && dist[i] >= 0 {
			n.Depth = dist[i]
		}
	}
}

// ErrNotStateful is returned by Explore when stateful search is asked of
// an executor whose executions cannot identify their states.
var ErrNotStateful = errors.New("stateful search needs a runtime that reports program states")

// Stateful reports whether the options make the search stateful: a
// visited set, the state graph or the detection of livelocks (each of
// which implies the one before). Such a search needs executions that
// implement Stateful, and a strategy that explores every continuation of
// a state from its first visit (Spec.CheckOptions).
func (o Options) Stateful() bool { return o.Visited || o.Graph || o.Livelock }

// initStateful prepares Options.Visited, Graph and Livelock.
func (x *explorer) initStateful() error {
	o := &x.opts
	o.Graph = o.Graph || o.Livelock
	o.Visited = o.Visited || o.Graph
	if !o.Visited {
		return nil
	}
	x.sf = &stateful{depth: make(map[uint64]int), anyDepth: x.anyDepth}
	if o.Graph {
		x.sf.graph = &Graph{}
		x.res.Graph = x.sf.graph
	}
	return nil
}

// visit applies stateful search at point k of execution n.
func (x *explorer) visit(e Execution, k, plen int, n int64) (bool, error) {
	se, ok := e.(Stateful)
	if !ok {
		return false, fmt.Errorf("execution %d: %w", n, ErrNotStateful)
	}
	st, ok := se.State()
	if !ok {
		return false, fmt.Errorf("execution %d, step %d: %w", n, k+1, ErrNotStateful)
	}
	fresh := k > plen || (n == 1 && k == 0)
	return x.sf.visit(st, e.Threads(), k, fresh, &x.res.Stats), nil
}

// livelock runs livelock detection at the end of a complete exploration.
func (x *explorer) livelock() {
	if !x.opts.Livelock || x.sf == nil || !x.res.Complete {
		return
	}
	if len(x.res.Bugs) > 0 && !x.opts.All {
		return
	}
	l := FindLivelockFair(x.sf.graph, x.opts.Fairness)
	if l == nil {
		return
	}
	o := l.OutcomeFair(x.opts.Fairness)
	x.bugLasso(&o, l)
}
