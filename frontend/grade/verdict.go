package grade

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/stdbg/stdbg/frontend/session"
)

// This file turns a search into each check's result: its failures, its
// score, and what the search covered.

// verdict is check c's result from the search r that served it.
func (g *grader) verdict(c *Check, r *outcome) CheckResult {
	if r.status != "" {
		return CheckResult{Status: r.status, Message: r.message}
	}
	found := r.found
	cr := CheckResult{Executions: found.Search.Stats.Executions, Search: coverage(found, r.l)}
	if r.first {
		cr.Search = firstBug(found)
	}
	lost := map[string]bool{}
	for _, fd := range found.Findings {
		kind := fd.Bug.Outcome.Kind.String()
		if !c.counts(kind) || fd.Report == nil || lost[kind] {
			// One failure of each kind: the first found, minimised,
			// is the student's to fix first.
			continue
		}
		cr.Failures = append(cr.Failures, g.failure(c, r.b, fd.Report))
		lost[kind] = true
	}
	if len(cr.Failures) == 0 {
		if !complete(found) && r.l.Incomplete == IncompleteFail {
			cr.Status = StatusUnverified
			cr.Message = unverified(found, r.l)
			return cr
		}
		cr.Status, cr.Score = StatusPassed, c.Points
		return cr
	}
	cr.Status = StatusFailed
	sort.SliceStable(cr.Failures, func(i, j int) bool { return cr.Failures[i].Kind < cr.Failures[j].Kind })
	cr.Score = c.Points
	if len(c.Deduct) == 0 {
		cr.Score = 0
		return cr
	}
	for kind := range lost {
		pts, ok := c.Deduct[classOf(kind)]
		if !ok {
			pts = c.Points
		}
		cr.Score -= pts
	}
	cr.Score = max(0, cr.Score)
	return cr
}

// firstBug says what a search that stopped at its first bug covered.
func firstBug(f *session.Found) string {
	runs := fmt.Sprintf("%d schedules", f.Search.Stats.Executions)
	if f.Search.Stats.Executions == 1 {
		runs = "1 schedule"
	}
	return "stopped at the first bug, after " + runs + ": one bug is enough to lose this check's points"
}

// complete reports a search that explored every schedule within its
// bounds, each to its end: not stopped by its executions bound, and no
// execution cut at the depth bound. (A preemption-bounded search is
// complete over its bound, which the assignment chose.)
func complete(f *session.Found) bool {
	return f.Coverage.Complete && !f.Coverage.DepthLimited
}

// unverified says why a check that found no bug could not vouch for the
// program, and what to look for.
func unverified(f *session.Found, l Limits) string {
	var why string
	switch {
	case f.Coverage.DepthLimited:
		why = fmt.Sprintf("some schedules of your program ran for more than %d steps without ending", l.MaxDepth)
	default:
		why = fmt.Sprintf("your program has more schedules than the %d the check explores", l.Executions)
	}
	return "No bug was found, but the check could not explore every schedule: " + why + ", so it cannot vouch for your program " +
		"and gives no points. A solution needs far fewer: look for a loop that retries or polls (a busy-wait: taking and " +
		"releasing a lock, trying a lock, yielding or re-reading a variable until something changes) where a thread should " +
		"sleep on a condition variable (or a channel) until another thread wakes it, or for a loop that never ends."
}

// coverage says what a check's search covered, in a student's words, from
// the search's coverage (session.Coverage): over which operations, and
// the constructs the model does not see, without which a complete search
// is never "exhaustive".
func coverage(f *session.Found, l Limits) string {
	c := f.Coverage
	n := c.Executions
	runs := fmt.Sprintf("%d schedules", n)
	if n == 1 {
		runs = "1 schedule"
	}
	scope := ""
	if c.Scope != "" {
		scope = ", over " + c.Scope
	}
	unseen := ""
	if len(c.NotModelled) > 0 {
		unseen = "; not exhaustive: the search does not see " + strings.Join(c.NotModelled, "; ")
	}
	switch {
	case c.BudgetSpent:
		return fmt.Sprintf("incomplete: %s explored within the time bound of %s%s", runs, time.Duration(l.Budget), scope)
	case c.Complete && c.DepthLimited:
		return fmt.Sprintf("incomplete: %s explored, some cut at %d steps%s", runs, c.MaxDepth, scope)
	case c.Complete && l.Preemptions != nil:
		return fmt.Sprintf("every schedule with at most %d preemptions explored (%s%s)%s", *l.Preemptions, runs, scope, unseen)
	case c.Kind == session.CompleteModelled || c.Complete && unseen != "":
		return fmt.Sprintf("complete over the modelled operations: every schedule explored (%s%s)%s", runs, scope, unseen)
	case c.Kind == session.Exhaustive:
		return fmt.Sprintf("exhaustive: every schedule explored (%s%s)", runs, scope)
	case l.Executions > 0 && n >= l.Executions:
		return fmt.Sprintf("incomplete: the bound of %s reached%s", runs, scope)
	}
	return fmt.Sprintf("incomplete: %s explored%s", runs, scope)
}
