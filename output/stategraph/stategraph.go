// Package stategraph records the state space an exploration visits and
// writes it as a Graphviz DOT graph: states as nodes, each transition as an
// edge labelled with its thread and operation, the ends of executions as
// boxes (bugs in red, clean exits in green).
//
// Without state identity, a state is the schedule that leads to it, so the
// drawing is the tree of the executions the search ran (with DPOR, only
// those it needed). With state identity (a stateful search, stdbg find
// --visited), schedules that reach the same program state meet in one
// node, and the drawing is the state graph proper, cycles included.
//
// A Recorder sits between the search and an executor, as schedprof's does;
// it is not safe for concurrent use.
package stategraph

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// Graph is the recorded state space. Node 0 is the initial state.
type Graph struct {
	Nodes []Node
	Edges []Edge
	// Merged reports that states were identified by their contents (a
	// stateful search), not by the schedule leading to them.
	Merged bool
}

// Node is a state.
type Node struct {
	// End is how an execution ended in this state ("" for a scheduling
	// point): "exited", or the kind of bug.
	End string
	// Bug reports that End is a bug.
	Bug bool
	// Message is the end's one-line description.
	Message string
}

// Edge is a transition.
type Edge struct {
	From, To int
	Thread   int
	Choice   int // the data choice, schedule.NoChoice for none
	Call     string
}

// Recorder is a search.Executor recording the graph of the executions of
// the executor it wraps.
type Recorder struct {
	ex     search.Executor
	namer  *report.Namer
	limit  int
	merged bool
	g      Graph
	index  map[string]int
	edges  map[[2]int]map[string]bool
	over   bool
}

// NewRecorder returns a recorder over ex that names objects with syms and
// stops recording above limit states (Over then reports it). merge
// identifies states by content when the executions can tell it
// (search.Stateful).
func NewRecorder(ex search.Executor, syms report.Symbols, limit int, merge bool) *Recorder {
	return &Recorder{ex: ex, namer: report.NewNamer(syms), limit: limit, merged: merge,
		index: map[string]int{}, edges: map[[2]int]map[string]bool{}}
}

// Over reports that the state space grew past the limit: the graph holds
// only part of it.
func (r *Recorder) Over() bool { return r.over }

// Graph returns the graph recorded so far.
func (r *Recorder) Graph() *Graph {
	g := r.g
	g.Merged = r.merged
	return &g
}

// Start implements search.Executor.
func (r *Recorder) Start() (search.Execution, error) {
	e, err := r.ex.Start()
	if err != nil {
		return nil, err
	}
	x := &execution{Execution: e, r: r}
	x.key = r.stateKey(e, "")
	x.node = r.node(x.key)
	return x, nil
}

// stateKey identifies the state e is in; prefix is the key of the
// schedule so far, used when states have no identity.
func (r *Recorder) stateKey(e search.Execution, prefix string) string {
	if r.merged {
		if sf, ok := e.(search.Stateful); ok {
			if st, ok := sf.State(); ok {
				return "h" + strconv.FormatUint(st.Hash, 16)
			}
		}
	}
	return "p" + prefix
}

// node returns the id of the state with key k, adding it if it is new and
// the limit allows: -1 once the limit is passed.
func (r *Recorder) node(k string) int {
	if id, ok := r.index[k]; ok {
		return id
	}
	if r.limit > 0 && len(r.g.Nodes) >= r.limit {
		r.over = true
		return -1
	}
	id := len(r.g.Nodes)
	r.index[k] = id
	r.g.Nodes = append(r.g.Nodes, Node{})
	return id
}

func (r *Recorder) addEdge(e Edge) {
	k := [2]int{e.From, e.To}
	label := fmt.Sprintf("%d/%d/%s", e.Thread, e.Choice, e.Call)
	if r.edges[k] == nil {
		r.edges[k] = map[string]bool{}
	}
	if r.edges[k][label] {
		return
	}
	r.edges[k][label] = true
	r.g.Edges = append(r.g.Edges, e)
}

// traced is what a recorder reads of an execution to name each step's
// operation with its result (executor.Execution provides it).
type traced interface {
	Trace() []executor.Step
}

// execution records the steps of one execution.
type execution struct {
	search.Execution
	r      *Recorder
	key    string // the state's key
	prefix string // the schedule so far
	node   int    // -1: past the limit
}

func (x *execution) Step(st schedule.Step) error {
	var op syncmodel.Op
	for _, t := range x.Threads() {
		if t.ID == st.Thread {
			op = t.Op
		}
	}
	err := x.Execution.Step(st)
	if err != nil || x.node < 0 {
		return err
	}
	res := syncmodel.Result{}
	if tr, ok := x.Execution.(traced); ok {
		if t := tr.Trace(); len(t) > 0 {
			last := t[len(t)-1]
			op, res = last.Op, last.Result
		}
	}
	call := x.r.namer.Call(op, res)
	x.prefix += ";" + stepText(st)
	o := x.Ended()
	var next string
	if o != nil {
		// Ends are told apart by the state before them and how the
		// execution ended there.
		next = "e" + x.key + ";" + stepText(st) + ";" + o.Kind.String() + ";" + o.Where
	} else {
		next = x.r.stateKey(x.Execution, x.prefix)
	}
	to := x.r.node(next)
	if to < 0 {
		x.node = -1
		return nil
	}
	if o != nil {
		x.r.g.Nodes[to] = Node{End: o.Kind.String(), Bug: o.Kind.IsBug(), Message: o.Message}
	}
	x.r.addEdge(Edge{From: x.node, To: to, Thread: st.Thread, Choice: st.Choice, Call: call})
	x.key, x.node = next, to
	return nil
}

// State implements search.Stateful for a stateful search through the
// recorder.
func (x *execution) State() (search.State, bool) {
	if sf, ok := x.Execution.(search.Stateful); ok {
		return sf.State()
	}
	return search.State{}, false
}

func stepText(st schedule.Step) string {
	if st.Choice != schedule.NoChoice {
		return fmt.Sprintf("%d:%d", st.Thread, st.Choice)
	}
	return strconv.Itoa(st.Thread)
}

// WriteDOT writes the graph in Graphviz's DOT language, titled title.
func (g *Graph) WriteDOT(w io.Writer, title string) error {
	var b strings.Builder
	b.WriteString("digraph stdbg {\n")
	kind := "the tree of the executions explored"
	if g.Merged {
		kind = "the state graph explored (states merged by identity)"
	}
	fmt.Fprintf(&b, "  graph [label=%s, labelloc=t, fontname=\"Helvetica\", fontsize=12, rankdir=TB, nodesep=0.25, ranksep=0.35];\n",
		quote(title+"\n"+kind))
	b.WriteString("  node [shape=circle, fontname=\"Helvetica\", fontsize=9, width=0.3, height=0.3, fixedsize=true, style=filled, fillcolor=\"#ffffff\", color=\"#5f6670\", label=\"\"];\n")
	b.WriteString("  edge [fontname=\"Helvetica\", fontsize=8, color=\"#5f6670\", arrowsize=0.6];\n")
	for id, n := range g.Nodes {
		switch {
		case id == 0:
			fmt.Fprintf(&b, "  s%d [label=\"start\", shape=circle, width=0.5, height=0.5, penwidth=2];\n", id)
		case n.Bug:
			fmt.Fprintf(&b, "  s%d [label=%s, tooltip=%s, shape=box, fixedsize=false, fillcolor=\"#f4c7c3\", color=\"#b3261e\", fontcolor=\"#b3261e\", penwidth=2];\n",
				id, quote(n.End), quote(n.Message))
		case n.End != "":
			fmt.Fprintf(&b, "  s%d [label=%s, shape=box, fixedsize=false, fillcolor=\"#d7ecd9\", color=\"#1e6b34\", fontcolor=\"#1e6b34\"];\n",
				id, quote("end"))
		}
	}
	edges := append([]Edge(nil), g.Edges...)
	sort.SliceStable(edges, func(i, j int) bool {
		if edges[i].From != edges[j].From {
			return edges[i].From < edges[j].From
		}
		return edges[i].Thread < edges[j].Thread
	})
	for _, e := range edges {
		label := fmt.Sprintf("T%d %s", e.Thread, e.Call)
		fmt.Fprintf(&b, "  s%d -> s%d [label=%s];\n", e.From, e.To, quote(label))
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// quote renders s as a DOT string.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	return `"` + r.Replace(s) + `"`
}
