package oracle

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/stdbg/stdbg/internal/testkit/long"
)

// known are the disagreements of findings (docs/oracle.md, "Findings")
// whose fixes have not landed: the quick mode counts them instead of failing. Remove a
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
	// F11: in logged mode DPOR does not see plain accesses, so on a
	// program with a race it runs two transitions whose accesses conflict
	// in one order only; when the other order fails in the first one,
	// before the second runs (no race yet), that failure is missed. The
	// divided DPOR searches miss it for the same reason (dporTwin).
	{finding: "F11", lang: C, strategy: "dpor", what: "missed-behind-race"},
	{finding: "F11", lang: C, strategy: "portfolio", what: "missed-behind-race"},
	{finding: "F11", lang: C, strategy: "dpor", what: "trace-missed-behind-race"},
	// F17: two Stops of a timer: DPOR runs 19 executions and misses 15
	// of the 34 traces running every schedule (5,631 executions) shows,
	// no bug among them. Found when F6's witness, whose comparison had
	// stopped at DefaultLimits' 5,000 schedules, was compared to the end.
	{finding: "F17", lang: Go, strategy: "dpor", what: "trace-missed", uses: []string{"stop"}},
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
	// F6's witness (two Stops of a zero-length timer): every schedule
	// shows 34 traces, DPOR runs 19 of them.
	"F17": twoStops,
	// Thread 1 reads y0 after the flag (ordered after main's store) and
	// crashes if it read 1: it must run between main's publication and
	// main's increment under the spin lock, whose operation is
	// independent of thread 1's load of the flag. DPOR runs the
	// increment first, and finds the race of the increment with thread
	// 1's read instead.
	"F11": `lang c
races
memory
obj a0 atomic
obj y0 plain
obj sp0 spin
thread 0
  go 1
  pstore y0 1
  astore a0 1
  spinlock sp0
  pincr y0
thread 1
  aload a0 r0
  if r0 == 1
    pload y0 r1
    syield
    crashif r1 == 1 #1
  end
`,
}

// twoStops is the witness of F6 and F17: two goroutines stop one timer.
const twoStops = `lang go
obj t0 timer
thread 0
  timer t0 0
  go 1
  stop t0 r0
thread 1
  stop t0 r0
`

// witnessLimits are the limits of the witnesses (of known and fixed
// findings) that DefaultLimits cannot compare: running every schedule of
// two Stops of a timer takes 5,631 executions.
var witnessLimits = map[string]Limits{
	"F17": {MaxDepth: 300, MaxExecutions: 10000, MinimiseExecutions: 300},
	"F6":  {MaxDepth: 300, MaxExecutions: 10000, MinimiseExecutions: 300},
}

// limitsOf returns the limits a witness is compared with.
func limitsOf(name string) Limits {
	if l, ok := witnessLimits[name]; ok {
		return l
	}
	return DefaultLimits
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
		// Only the strategies the finding's entries name are compared.
		sel := func(name string) bool {
			for _, k := range known {
				if k.finding == f && k.strategy == name {
					return true
				}
			}
			return false
		}
		res, err := Compare(context.Background(), p, limitsOf(f), sel)
		if err != nil {
			t.Fatal(err)
		}
		if res.Skipped != "" {
			t.Errorf("finding %s: its witness was not compared: %s (%s)", f, res.Skipped, res.summary())
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

// fixed are the minimal programs of findings whose fixes have landed: on
// each, no strategy may miss or invent a bug (trace-level differences a
// known entry explains are allowed). Each failed before its fix.
var fixed = map[string]string{
	// F1 and F5: thread 2's wg1.Done() misuse ends the execution while
	// main's wg0.Done() is pending; DPOR never ran main's Done second.
	"F1/F5": `lang go
obj wg0 waitgroup
obj wg1 waitgroup
thread 0
  wgadd wg0 1
  go 1
  wgdone wg0
thread 1
  wgdone wg0
  wgdone wg1
`,
	// F6: two Stops of one timer; the second waited for ever (a false
	// deadlock) and DPOR missed the order that showed it.
	"F6": twoStops,
	// F2 (bug level): a Stop of a timer that was armed or idle was no
	// step of its own, so two Stops of one timer, each in the transition
	// of what its goroutine did before, looked independent: DPOR never
	// ran the goroutine's Stop first, the only order in which it stops
	// the timer (long mode, seed go-515).
	"F2/two-stops": `lang go
obj t0 timer
thread 0
  timer t0 0
  go 1
  stop t0 r0
thread 1
  stop t0 r0
  crashif r0 == 1 #2
`,
	// F2 (trace level): a Stop that took back a timer's offer wakes
	// after the timer's goroutine closes the arming's taken channel, or
	// before: the two commute (the wake was by the Stop's rendezvous),
	// but the close was taken to depend on every wake of its channel's
	// goroutines and the trace keys kept them apart (fixed with F12).
	"F2/trace": `lang go
obj t0 timer
obj wg0 waitgroup
thread 0
  timer t0 0
  wgadd wg0 1
  reset t0 0 r0
  wgwait wg0
`,
	// F4: thread 1's select, which takes its default case, and main's
	// wake from the send that thread 1's receive completed commute, but
	// a select was taken to depend on every wake of its channels'
	// goroutines: the trace keys kept the two orders apart (fixed with
	// F12, which is the same cause at the level of bugs). No bug.
	"F4": `lang go
obj ch0 chan 0
thread 0
  go 1
  send ch0 1
thread 1
  recv ch0 r0
  select r1 { recv ch0 _ | default }
`,
	// F12: a select (here one with a default case, which polls) or a
	// close was taken to depend on the wake of every goroutine parked on
	// its channels, and to precede it, even once another operation had
	// woken that goroutine: DPOR then ordered every later operation of
	// the woken goroutine after the select and never reversed them.
	// Thread 1's receive completes thread 2's send on c1; main's poll
	// ran before thread 2's send on c0, which it could have taken (then
	// main's own send blocks for ever, and thread 2's receive too).
	"F12/poll": `lang go
obj c0 chan 0
obj c1 chan 0
obj c2 chan 1
thread 0
  go 1
  go 2
  select r1 { recv c1 _ | recv c0 _ | default }
  send c0 1
thread 1
  select r1 { recv c1 _ | recv c1 _ | default }
thread 2
  send c1 1
  send c0 1
  recv c2 r0
`,
	// F12, a close: main's receive completes thread 1's parked select;
	// main's select parks; thread 1 closes c0 after its wake. DPOR never
	// ran thread 1's close before main's select, whose send case then
	// sends on a closed channel.
	"F12/close": `lang go
obj c0 chan 0
obj c1 chan 0
thread 0
  go 1
  recv c0 r0
  select r1 { send c0 1 | recv c0 _ }
thread 1
  select r1 { send c0 1 | recv c1 _ }
  close c0
`,
	// F13: an event that ended its execution (a misuse: thread 1's send
	// on the closed c0) stood in a sleep set, and in a wakeup tree, for
	// every schedule that starts with an event independent of it (thread
	// 2's start), as if the execution had gone on after it: DPOR never
	// started thread 2 there, whose select then sends on c0 too.
	"F13": `lang go
obj c0 chan 0
obj c1 chan 0
obj c2 chan 1
thread 0
  go 1
  go 2
  send c0 1
  send c1 1
thread 1
  close c0
  select r1 { recv c1 _ | recv c1 _ | default }
  select r1 { send c0 1 | recv c2 _ }
thread 2
  select r1 { send c0 1 | recv c0 _ }
`,
	// F14: two goroutines cancel one context. Which one claims it (and
	// so closes its Done and sets the cause it keeps) was decided by
	// state the model does not see, and DPOR ran one of the two orders
	// (long mode, seed 1032). No bug here; with causes, the cause Cause
	// returns (sthread/context's TestConcurrentCancelsEachWin).
	"F14": `lang go
obj k0 ctx
thread 0
  ctx k0 0
  go 1
  go 2
thread 1
  cancel k0
thread 2
  cancel k0
`,
	// F15: main's lock ends the execution (its transition reads y0,
	// still 0, and crashes); thread 1's section is independent of it
	// and writes y0. DPOR ran thread 1 first where main's lock had run,
	// but the points after thread 1's steps inherited main's lock in
	// their sleep sets, so it never ran after the write, the only order
	// in which its read races with it: the race was missed, and the
	// search said it was complete.
	"F15": `lang c
races
memory
obj y0 plain
obj m0 mutex
obj m1 mutex
thread 0
  go 1
  lock m0
  pload y0 r0
  crashif r0 == 0 #1
thread 1
  lock m1
  pstore y0 1
  unlock m1
`,
	"F6/ticker": `lang go
obj t0 timer
thread 0
  ticker t0 2
  go 1
  stop t0 r0
thread 1
  stop t0 r0
`,
	// F6, one Stop: DPOR did not reverse the receive of the timer's
	// value with main's Stop (a select that completes a parked select
	// was not seen to touch the parked select's other channels).
	"F6/recv": `lang go
obj t0 timer
obj ch0 chan 2
thread 0
  timer t0 0
  go 1
  stop t0 r0
  recv ch0 r1
thread 1
  tick t0
`,
	// F16: thread 1 polls an atomic flag nobody sets three times and
	// fails. In a memory build an atomic load is a scheduling point
	// entered through the instrumentation's entry points, which had no
	// frame pointers: the state there left out thread 1's stack, so its
	// polls were one state whatever the loop counter, and the stateful
	// search cut the second as a revisit of the first ("exhaustive",
	// the failure missed; long mode, C seed 20021).
	"F16": `lang c
memory
obj a1 atomic
thread 0
  go 1
thread 1
  retry a1 1 3 #1
`,
	// F7: the stateful search merged states that differ only in
	// happens-before and lost the deadlock only the race-free order shows.
	"F7": `lang c
races
obj m0 mutex
obj x0 var
obj b0 barrier 2
thread 0
  go 1
  lock m0
  unlock m0
  incr x0
  barrier b0 r0
thread 1
  lock m0
  read x0 r0
  unlock m0
`,
	"F7/races": `lang c
races
obj x0 var
thread 0
  go 1
  incr x0
  choose 2 r1
  if r1 == 1
    write x0 1
  end
thread 1
  write x0 1
`,
	// F9: in a Memory build a plain access was seen (a scheduling point,
	// or logged) only while another thread lived: thread 2's increment,
	// after thread 1 finished unjoined, was not checked against thread
	// 1's store, and DPOR, for which thread 1's exit and thread 2's
	// access were independent, never ran thread 2 first: no race found
	// (stdbg find's default).
	"F9": `lang c
races
memory
obj y0 plain
obj s0 sem
thread 0
  go 1
  go 2
  sempost s0
  exit
thread 1
  pstore y0 1
thread 2
  semwait s0
  pincr y0
`,
	// F9, an assertion behind the race: when thread 1 ran to its end
	// first, main's increment was not checked, and its assertion failed
	// with no race reported; DPOR missed that order.
	"F9/assert": `lang c
races
memory
obj m0 mutex 1
obj y0 plain
thread 0
  go 1
  lock m0
  pincr y0
  unlock m0
  join 1
  pload y0 r0
  syield
  assert r0 != 2 #1
thread 1
  pstore y0 1
  pstore y0 1
`,
	// F8: a pthread_once on a completed control was invisible.
	"F8": `lang c
obj o0 once
obj x0 var
thread 0
  go 1
  once o0
    write x0 1
  end
  read x0 r0
  assert r0 == 1 #1
  join 1
thread 1
  once o0
    write x0 2
  end
`,
}

// unending are the fixed findings' witnesses whose schedules have no end:
// a ticker ticks until it is stopped, as many times as the schedule lets
// it before the first Stop. Running every schedule never completes (nor
// does a depth bound make it: every bound is reached), so no strategy can
// be compared on them.
var unending = map[string]bool{"F6/ticker": true}

// Every fixed finding's witness agrees at the level of bugs: no strategy
// misses or invents one, and every search that claims completeness
// completes. go test ./... compares on each witness the strategies the
// findings fixed so far were about (DPOR, the state cache, the memory
// check's two modes) and one other in turn, as the quick mode does;
// -e2e.long compares every strategy on every witness.
func TestFixedFindingsAgree(t *testing.T) {
	names := slices.Sorted(maps.Keys(fixed))
	for i, name := range names {
		text := fixed[name]
		var sel func(string) bool
		if !long.Enabled() {
			other := quickSelect(uint64(i))
			sel = func(n string) bool { return n == "visited" || other(n) }
		}
		t.Run(name, func(t *testing.T) {
			p := mustParse(t, text)
			if unending[name] {
				// Only the first schedules run, and none may show a bug
				// (the second Stop waiting for ever was a deadlock).
				res, err := Compare(context.Background(), p, Limits{MaxDepth: DefaultLimits.MaxDepth, MaxExecutions: 300}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.Reference == nil || res.Reference.Stats.Executions < 300 || len(res.Reference.Bugs) > 0 {
					t.Errorf("want 300 schedules without a bug: %s", res.summary())
				}
				return
			}
			res, err := Compare(context.Background(), p, limitsOf(name), sel)
			if err != nil {
				t.Fatal(err)
			}
			if res.Skipped != "" {
				t.Fatalf("not compared: %s (%s)", res.Skipped, res.summary())
			}
			if res.Reference == nil || len(res.Reference.Bugs) == 0 && name != "F6" && name != "F4" && name != "F14" {
				// every witness but the double Stop, F4 and F14 has a bug to find
				t.Errorf("running every schedule found no bug: %s", res.summary())
			}
			for _, d := range res.Disagree {
				switch d.What {
				case "trace-missed", "trace-missed-at-end", "trace-extra", "trace-count":
					if knownFinding(p, 0, d) == "" {
						t.Errorf("%s: %s %s (%s)", d.Strategy, d.What, d.Detail, res.summary())
					}
				default:
					t.Errorf("%s: %s %s (%s)", d.Strategy, d.What, d.Detail, res.summary())
				}
			}
		})
	}
}

// TestTwoStopsOutcomes checks F17's shape at the level of bugs: whatever
// DPOR's trace misses on two Stops of one timer, every outcome of the
// race (either Stop stopping the timer, or neither because it fired) is an
// assertion DPOR finds, as running every schedule does.
func TestTwoStopsOutcomes(t *testing.T) {
	const head = "lang go\nobj t0 timer\nthread 0\n  timer t0 0\n  go 1\n  stop t0 r0\n"
	tests := []struct{ name, main, thread1 string }{
		{"main stops it", "  assert r0 != 1 #1\n", ""},
		{"goroutine stops it", "", "  assert r0 != 1 #1\n"},
		{"main finds it stopped or fired", "  assert r0 != 0 #1\n", ""},
		{"goroutine finds it stopped or fired", "", "  assert r0 != 0 #1\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, head+tc.main+"thread 1\n  stop t0 r0\n"+tc.thread1)
			// DPOR is the strategy whose traces F17 found short.
			dpor := func(s string) bool { return s == "dpor" }
			res, err := Compare(context.Background(), p, limitsOf("F17"), dpor)
			if err != nil {
				t.Fatal(err)
			}
			if res.Skipped != "" {
				t.Fatalf("not compared: %s (%s)", res.Skipped, res.summary())
			}
			if res.Reference == nil || len(res.Reference.Bugs) == 0 {
				t.Fatalf("running every schedule found no bug: %s", res.summary())
			}
			for _, d := range res.Disagree {
				switch d.What {
				case "trace-missed", "trace-missed-at-end", "trace-extra", "trace-count":
					// F17, at the trace level.
				default:
					t.Errorf("%s: %s %s (%s)", d.Strategy, d.What, d.Detail, res.summary())
				}
			}
		})
	}
}
