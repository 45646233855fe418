package oracle

import (
	"context"
	"testing"
)

// known are the disagreements recorded in the findings file
// (/work/notes/oracle-findings.md, one section per finding) whose fixes
// have not landed: the quick mode counts them instead of failing. Remove a
// finding's entries and its witness when its fix lands; the quick mode
// fails when a finding's witness no longer disagrees, to say so.
var known = []knownEntry{
	// end: not a finding but what the model allows. A trace that differs
	// from one DPOR ran only in operations of other threads that an end
	// (a failure, a misuse, the checked function's return) cut short: the
	// outcome of the end depends on its causal past alone, the same in
	// both, and nothing runs after it. Ordering every independent
	// operation before every end would multiply the executions for no
	// bug; a bug missed that way is still "missed-at-end", a failure.
	{finding: "end", strategy: "dpor", what: "trace-missed-at-end"},
	// F2: a timer's Stop and Reset change it without a visible
	// operation, so DPOR does not see them race with the timer's send.
	{finding: "F2", strategy: "dpor", what: "trace-missed", uses: []string{"stop", "reset"}},
	// F4: a select that takes its default case has no effect annotation,
	// so the trace keys keep apart two orders DPOR rightly merges (a
	// trace-level difference, no bug missed).
	{finding: "F4", lang: Go, seed: 243, strategy: "dpor", what: "trace-missed"},
}

// witnesses are the minimal programs of the findings in known, from the
// findings file: each disagrees until its finding is fixed.
var witnesses = map[string]string{
	// A failure of thread 1 cuts main's independent increment short:
	// every schedule shows four traces, DPOR runs one (the same bug).
	"end": `lang go
obj x0 var
obj a0 atomic
thread 0
  go 1
  incr x0
thread 1
  aadd a0 1 r0
  assert r0 != 1 #1
`,
	// A misuse ends the execution while main's Done is pending (the
	// deadly embrace of the findings file is fixed on main; this one is
	// not).
	"F2": `lang go
obj t0 timer
obj wg0 waitgroup
thread 0
  timer t0 0
  wgadd wg0 1
  reset t0 0 r0
  wgwait wg0
`,
	"F4": `lang go
obj ch0 chan 0
thread 0
  go 1
  send ch0 1
thread 1
  recv ch0 r0
  select r1 { recv ch0 _ | default }
`,
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

// Each known finding's witness still disagrees as recorded: when one does
// not, its fix has landed and its entries must go.
func TestKnownFindingsStillDisagree(t *testing.T) {
	for _, k := range known {
		if _, ok := witnesses[k.finding]; !ok {
			t.Errorf("finding %s has no witness program", k.finding)
		}
	}
	for f, text := range witnesses {
		p := mustParse(t, text)
		res, err := Compare(context.Background(), p, DefaultLimits, nil)
		if err != nil {
			t.Fatal(err)
		}
		still := false
		for _, d := range res.Disagree {
			for _, k := range known {
				still = still || k.finding == f && k.strategy == d.Strategy && k.what == d.What
			}
		}
		if !still {
			t.Errorf("finding %s no longer shows on its witness (%s): remove its entries from known", f, res.summary())
		}
	}
}
