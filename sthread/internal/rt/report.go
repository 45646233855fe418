package rt

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
)

// Report builds the report of ex, run by the checker's execution e and
// ended by outcome (nil: cut, or clean), with what is particular to Go: the
// function each goroutine runs, in front of each step and wait, names
// instead of ids in the message, and where a goroutine whose transition
// timed out was.
//
//go:norace
func (ex *Execution) Report(e *executor.Execution, outcome *search.Outcome) *report.Report {
	syms := newSymbols(ex.r, ex, e.Trace(), e.BlockedThreads())
	rep := report.Build(e, outcome, syms)
	ex.decorate(rep, syms)
	if len(ex.stuck) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("thread %d was running %s", ex.stuckTid, strings.Join(ex.stuck, ", called from ")))
	}
	return rep
}

// decorate adds to a report the function each goroutine runs, in front of
// each step and wait, and names instead of ids in the message.
//
//go:norace
func (ex *Execution) decorate(rep *report.Report, syms *goSymbols) {
	names := make(map[int]string)
	width := 0
	for _, th := range ex.threads {
		n := shortFunc(runtime.FuncForPC(th.fn))
		names[th.tid] = n
		width = max(width, len(n))
	}
	stepped := make(map[int]bool)
	for i := range rep.Steps {
		s := &rep.Steps[i]
		s.Call = fmt.Sprintf("%-*s  %s", width, names[s.Thread], s.Call)
		stepped[s.Thread] = true
	}
	for i := range rep.Waits {
		if w := &rep.Waits[i]; !stepped[w.Thread] {
			w.Text = fmt.Sprintf("(%s) %s", names[w.Thread], w.Text)
		}
	}
	rep.Message = syms.nameIDs(rep.Message)
}
