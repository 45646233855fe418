package search

import (
	"strconv"

	"github.com/stdbg/stdbg/model/syncmodel"
)

// TraceKey returns a canonical form of the Mazurkiewicz trace of an
// execution (Report.Trace): two executions have the same key iff one is
// the other with independent operations swapped, so that they reach the
// same state. The order that counts is program order, thread creation (the
// n-th ThreadCreate executed creates thread n+1) and syncmodel.Dependent.
// The key is the lexicographic normal form of the trace: the execution
// reordered so that at each step the lowest thread that can go next does,
// written step by step with each operation's kind and object. Objects are
// numbered in the order they appear there, not written as addresses, so
// that keys compare across executions whose objects lie elsewhere (Go
// variables allocated anew, programs loaded at random addresses).
//
// Counting the distinct keys of an exploration that runs every schedule
// gives the number of traces, which an optimal reduction (NewDPOR) runs one
// execution each.
func TraceKey(trace []Event) string {
	n := len(trace)
	threads := n + 2 // thread ids a trace can name: the created ones, and its own
	for i := range trace {
		threads = max(threads, trace[i].Step.Thread+1)
	}
	// Per thread id: the event that created it, its last event so far, and
	// the event i whose predecessors were being looked for when one of its
	// events was found dependent (the latest such event implies the
	// thread's earlier ones, by program order: the rest are skipped). -1:
	// none.
	created, last, found := make([]int, threads), make([]int, threads), make([]int, threads)
	for u := range threads {
		created[u], last[u], found[u] = -1, -1, -1
	}
	preds := make([][]int, n)
	creates := 0
	for i := range trace {
		t := trace[i].Step.Thread
		if t < 0 {
			t = 0 // (no such thread: an index all the same)
		}
		if j := last[t]; j >= 0 {
			preds[i] = append(preds[i], j)
		} else if j := created[t]; j >= 0 {
			preds[i] = append(preds[i], j)
		}
		for j := i - 1; j >= 0; j-- {
			tj := max(trace[j].Step.Thread, 0)
			if tj == t || found[tj] == i {
				continue
			}
			if syncmodel.DependentInOrder(trace[j].Step.Thread, trace[j].Op, trace[i].Step.Thread, trace[i].Op) {
				preds[i] = append(preds[i], j)
				found[tj] = i
			}
		}
		last[t] = i
		if trace[i].Op.Kind == syncmodel.ThreadCreate {
			creates++
			created[creates+1] = i
		}
	}
	done := make([]bool, n)
	names := map[uint64]int{0: 0}
	b := make([]byte, 0, 24*n)
	for range n {
		best := -1
		for i := range trace {
			if done[i] || best >= 0 && trace[i].Step.Thread >= trace[best].Step.Thread {
				continue
			}
			ready := true
			for _, j := range preds[i] {
				ready = ready && done[j]
			}
			if ready {
				best = i
			}
		}
		done[best] = true
		e := &trace[best]
		obj, ok := names[e.Op.Obj]
		if !ok {
			obj = len(names)
			names[e.Op.Obj] = obj
		}
		// As fmt's "%v/%v@%d;" of the step, the kind and obj.
		b = append(b, '{')
		b = strconv.AppendInt(b, int64(e.Step.Thread), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(e.Step.Choice), 10)
		b = append(b, "}/"...)
		b = append(b, e.Op.Kind.String()...)
		b = append(b, '@')
		b = strconv.AppendInt(b, int64(obj), 10)
		b = append(b, ';')
	}
	return string(b)
}
