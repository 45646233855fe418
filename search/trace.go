package search

import (
	"fmt"
	"strings"

	"github.com/stdbg/stdbg/syncmodel"
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
	preds := make([][]int, n)
	created := map[int]int{}
	last := map[int]int{}
	creates := 0
	for i := range trace {
		t := trace[i].Step.Thread
		if j, ok := last[t]; ok {
			preds[i] = append(preds[i], j)
		} else if j, ok := created[t]; ok {
			preds[i] = append(preds[i], j)
		}
		for j := 0; j < i; j++ {
			if tj := trace[j].Step.Thread; tj != t && syncmodel.DependentInOrder(tj, trace[j].Op, t, trace[i].Op) {
				preds[i] = append(preds[i], j)
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
	var b strings.Builder
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
		fmt.Fprintf(&b, "%v/%v@%d;", e.Step, e.Op.Kind, obj)
	}
	return b.String()
}
