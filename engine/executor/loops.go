package executor

import (
	"fmt"
	"sort"

	"github.com/stdbg/stdbg/model/syncmodel"
)

// What an execution cut by the depth bound was doing: the threads that
// were looping when it was cut, each with what its loop does and where.
// A search says it with its verdict (search.Result.Loops), so that a user
// knows why the executions did not end, and which flag may help.

// loopTail is how many of the last steps of an execution Loops looks at;
// a thread that took at least loopMin of them, most at one place, loops.
const (
	loopTail = 512
	loopMin  = 16
)

// Loops implements search.Looper: the threads that took many of the last
// steps of the execution, each as "thread 3 polls a timer at x.go:12",
// most steps first.
func (e *Execution) Loops() []string {
	tail := e.trace
	if len(tail) > loopTail {
		tail = tail[len(tail)-loopTail:]
	}
	type site struct {
		tid   int
		where string
		kind  syncmodel.Kind
		api   syncmodel.API
		obj   uint64
	}
	counts := map[site]int{}
	steps := map[int]int{}
	for i := range tail {
		st := &tail[i]
		s := site{tid: st.Thread, where: e.where(st.Frames), kind: st.Op.Kind, api: st.Op.API, obj: st.Op.Obj}
		counts[s]++
		steps[st.Thread]++
	}
	best := map[int]site{}
	for s, n := range counts {
		if b, ok := best[s.tid]; !ok || n > counts[b] || n == counts[b] && s.where < b.where {
			best[s.tid] = s
		}
	}
	var tids []int
	for tid, n := range steps {
		if n >= loopMin {
			tids = append(tids, tid)
		}
	}
	sort.Slice(tids, func(i, j int) bool {
		if steps[tids[i]] != steps[tids[j]] {
			return steps[tids[i]] > steps[tids[j]]
		}
		return tids[i] < tids[j]
	})
	out := make([]string, 0, len(tids))
	for _, tid := range tids {
		s := best[tid]
		// The site's latest operation, for what it does.
		var op syncmodel.Op
		for i := len(tail) - 1; i >= 0; i-- {
			if o := &tail[i].Op; tail[i].Thread == tid && o.Kind == s.kind && o.API == s.api && o.Obj == s.obj {
				op = *o
				break
			}
		}
		out = append(out, fmt.Sprintf("thread %d %s at %s (%d of the last %d steps)", tid, e.loopVerb(op), s.where, steps[tid], len(tail)))
	}
	return out
}

// loopVerb says what a loop whose most frequent operation is op does.
func (e *Execution) loopVerb(op syncmodel.Op) string {
	switch op.Kind {
	case syncmodel.Select:
		for _, c := range op.Cases {
			if !c.Send && e.w.TimerChannel(c.Chan) {
				if op.Arg == 1 {
					return "polls a timer"
				}
				return "waits on a timer"
			}
		}
		if op.Arg == 1 {
			return "polls with a select's default case"
		}
		return "selects"
	case syncmodel.TimerWait:
		return "waits for time"
	case syncmodel.Read:
		return "polls " + e.spanName(syncmodel.Span{Addr: op.Obj, Size: op.Arg})
	case syncmodel.Write:
		if op.API == syncmodel.APIAtomicCompareSwap || op.API == syncmodel.APICAtomicRMW {
			return "retries an atomic operation on " + e.spanName(syncmodel.Span{Addr: op.Obj, Size: op.Arg})
		}
		return "writes " + e.spanName(syncmodel.Span{Addr: op.Obj, Size: op.Arg})
	case syncmodel.Yield:
		if op.API == syncmodel.APIMemoryPoll {
			return "polls memory (plain loads)"
		}
		return "yields"
	case syncmodel.Sleep:
		return "sleeps"
	case syncmodel.MutexTrylock, syncmodel.SpinTrylock, syncmodel.GoMutexTryLock, syncmodel.RWTryRdlock,
		syncmodel.RWTryWrlock, syncmodel.GoRWTryLock, syncmodel.GoRWTryRLock, syncmodel.SemTrywait:
		return "retries a trylock"
	}
	return "loops in " + op.API.String()
}
