package oracle

// known are the disagreements recorded in the findings file
// (/work/notes/oracle-findings.md, one section per finding) whose fixes
// have not landed: the quick mode counts them instead of failing. Remove a
// finding's entries when its fix lands; the quick mode fails on an entry
// that no longer matches anything, to say so.
var known = []knownEntry{
	// end: not a finding but what the model allows. A trace that differs
	// from one DPOR ran only in operations of other threads that an end
	// (a failure, a misuse, the checked function's return) cut short: the
	// outcome of the end depends on its causal past alone, the same in
	// both, and nothing runs after it. Ordering every independent
	// operation before every end would multiply the executions for no
	// bug; a bug missed that way is still "missed-at-end", a failure.
	{finding: "end", strategy: "dpor", what: "trace-missed-at-end"},
	// F1: DPOR never orders an operation still pending when an execution
	// ends (a failure, the checked function's return, C's exit) before
	// that end: whole traces are missed, and the bugs only they show.
	// The divided DPOR searches miss what DPOR misses.
	// F2: a timer's Stop and Reset change it without a visible
	// operation, so DPOR does not see them race with the timer's send.
}

// knownEntry matches disagreements: of a strategy, of a kind, on the
// program of one seed (0: any), on programs that use one of the given
// operations (nil: any).
type knownEntry struct {
	finding  string
	lang     Lang // "": any
	seed     uint64
	strategy string
	what     string
	uses     []string
}

// knownFinding names the finding that explains disagreement d on the
// program p of seed, or "".
func knownFinding(p *Program, seed uint64, d Disagreement) string {
	for _, k := range known {
		if (k.lang == "" || k.lang == p.Lang) && (k.seed == 0 || k.seed == seed) &&
			k.strategy == d.Strategy && k.what == d.What && (k.uses == nil || usesAny(p, k.uses)) {
			return k.finding
		}
	}
	return ""
}

func usesAny(p *Program, codes []string) bool {
	found := false
	for _, t := range p.Threads {
		walk(t.Ops, func(op *Op) error {
			for _, c := range codes {
				found = found || op.Code == c
			}
			return nil
		})
	}
	return found
}
