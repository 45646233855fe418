package oracle

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/stdbg/stdbg/engine/search"
)

// The memory check.
//
// stdbg find builds a C source with the memory instrumentation and, with
// data races reported (the default), makes none of the program's plain
// loads and stores a scheduling point: each thread logs them and sends
// them with its next operation, and the race detector checks them at the
// thread's clock after its last operation (logged mode,
// ctarget.MemoryLogEnv). With --races=false every plain access is a
// scheduling point (points mode). Logged mode reorders operations only;
// that it misses nothing rests on the DRF argument: when no schedule of
// the operations has a data race, the plain accesses a thread makes
// between two operations commute with everything the other threads do;
// and a program's first data race shows in some schedule of its
// operations.
//
// checkMemory tests the argument on every Memory program. It explores the
// program in points mode with the race detector on (P) and in logged mode
// (L), both to the end: every schedule, or DPOR where there are too many
// (DPOR is itself checked against every schedule in both modes, on the
// Memory programs with and without Races), each bug kept; L is the
// reference search when the program runs in logged mode. stdbg runs one
// thread at a time: in P the accesses are sequentially consistent, one
// execution step each, and the detector ends an execution at its first
// race. It requires:
//
//  1. a race L reports, P reports too ("race-extra"): a logged execution
//     is an execution of P, with the same accesses and the same operations
//     ordering them;
//  2. every other bug L reports, P reports ("extra"): a logged execution
//     that ends in it without a race is a race-free execution of P, which
//     no race cuts short;
//  3. when P finds a race, L finds one ("race-missed"), not necessarily
//     of the same pair of accesses: the accesses of P's first race are
//     unordered in a schedule of the operations too, and the detector
//     sees both once their transitions end (both modes see an access
//     while another thread lives or has finished unjoined);
//  4. when neither finds a race, L reports every bug P does ("missed"):
//     with 2, the same deadlocks, leaks, assertion failures, crashes and
//     misuses, by place.
//
// 1 and 2 hold of every program. 3 and 4 need one more thing, which the
// generator gives every Memory program (a stdbg_yield where needed) and
// the check verifies first (failuresFollowPoints): no plain access
// between a thread's last operation and a failure (a failed assertion, a
// crash). In logged mode a transition runs whole, and one that fails ends
// the execution: no other thread runs between its accesses and the
// failure. So in "t1: lock; unlock; x = 2; crash" against "main: lock;
// x = 1; unlock", the race needs main between t1's unlock and its store:
// P reports it, L only the crash. And when main unlocks, stores a
// variable of its own and crashes in one transition, a thread that waits
// for the lock never runs before the crash: a failure it would show there
// (no race anywhere) only P reports. With a scheduling point before each
// failure, every transition that makes a plain access ends at an
// operation, and 3 and 4 follow. Without it only 1 and 2 are checked
// (MemoryCheck.Strict). (TestMemoryFailureEndsTransition, F10 in
// docs/oracle.md.)
//
// Not checked: what a racy program does after its first race (P ends
// the execution there; real processors are not sequentially consistent,
// which only matters once there is a race); the choice of the pair a race
// is reported on.

// MemoryCheck is the comparison of a Memory program's two modes.
type MemoryCheck struct {
	// Points is the verdict with every plain access a scheduling point,
	// Logged with plain accesses logged; both with races reported.
	Points, Logged *Verdict
	// Skipped says why the modes were not compared ("" if they were): a
	// search did not complete.
	Skipped string
	// Strict: the program satisfies failuresFollowPoints, and all four
	// requirements were checked; else only the first two.
	Strict bool
}

// Racy tells whether points mode found a data race.
func (m *MemoryCheck) Racy() bool { return m != nil && m.Points != nil && hasRace(m.Points) }

// checkMemory compares the two modes of a Memory program (see above);
// logged is the reference verdict when t runs in logged mode with races,
// reused. It returns nil for a program without the instrumentation.
func checkMemory(ctx context.Context, t target, ref *Verdict, l Limits) (*MemoryCheck, []Disagreement, error) {
	ct, ok := t.(*cTarget)
	if !ok || !ct.memory {
		return nil, nil, nil
	}
	mc := &MemoryCheck{Strict: ct.strict}
	var err error
	if ct.logged && ct.races {
		mc.Logged = ref
	} else if mc.Logged, err = exhaust(ctx, ct.mode(true, true), l); err != nil {
		return mc, nil, fmt.Errorf("logged mode: %w", err)
	}
	if !mc.Logged.Complete {
		mc.Skipped = fmt.Sprintf("logged mode: not exhaustive after %d executions", mc.Logged.Stats.Executions)
		return mc, nil, nil
	}
	if mc.Points, err = exhaust(ctx, ct.mode(true, false), l); err != nil {
		return mc, nil, fmt.Errorf("points mode: %w", err)
	}
	if !mc.Points.Complete {
		mc.Skipped = fmt.Sprintf("points mode: not exhaustive after %d executions", mc.Points.Stats.Executions)
		return mc, nil, nil
	}
	return mc, diffMemory(mc), nil
}

// diffMemory checks the requirements of checkMemory on two complete
// verdicts.
func diffMemory(mc *MemoryCheck) []Disagreement {
	p, lg := mc.Points, mc.Logged
	pr, lr := hasRace(p), hasRace(lg)
	var ds []Disagreement
	d := func(what, format string, args ...any) {
		ds = append(ds, Disagreement{"memory", what, fmt.Sprintf(format, args...)})
	}
	if lr && !pr {
		d("race-extra", "logged mode reports %s, points mode no race (bugs %s)", raceKeys(lg), keyList(p))
	}
	for _, k := range lg.Keys() {
		if lg.Bugs[k].Outcome.Kind != search.DataRace && !slices.Contains(p.Keys(), k) {
			d("extra", "%s (schedule %v): points mode does not report it (bugs %s)", k, lg.Bugs[k].Schedule, keyList(p))
		}
	}
	if !mc.Strict {
		return ds
	}
	if pr && !lr {
		d("race-missed", "points mode reports %s (schedule %v), logged mode no race (bugs %s)",
			raceKeys(p), p.Bugs[raceKeys(p)[0]].Schedule, keyList(lg))
	}
	if !pr && !lr {
		for _, k := range p.Keys() {
			if !slices.Contains(lg.Keys(), k) {
				d("missed", "%s (schedule %v): logged mode does not report it (bugs %s)", k, p.Bugs[k].Schedule, keyList(lg))
			}
		}
	}
	return ds
}

// exhaust explores t to the end: every schedule when there are few (a
// tenth of l.MaxExecutions: with every plain access a point, most
// programs have many), else DPOR (with four times l.MaxExecutions).
func exhaust(ctx context.Context, t target, l Limits) (*Verdict, error) {
	v, err := exploreCounted(ctx, t, search.NewDFS(), l, false, max(l.MaxExecutions/10, 1))
	if err != nil || v.Complete || v.Stats.MaxDepthHit > 0 {
		v.Strategy = "none"
		return v, err
	}
	v, err = exploreCounted(ctx, t, search.NewDPOR(), l, false, 4*l.MaxExecutions)
	v.Strategy = "dpor"
	return v, err
}

// hasRace tells whether a verdict has a data race.
func hasRace(v *Verdict) bool { return len(raceKeys(v)) > 0 }

// raceKeys are the keys of a verdict's data races, sorted.
func raceKeys(v *Verdict) []string {
	var ks []string
	for _, k := range v.Keys() {
		if v.Bugs[k].Outcome.Kind == search.DataRace {
			ks = append(ks, k)
		}
	}
	return ks
}

// summary is a one-line account of a memory check.
func (m *MemoryCheck) summary() string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("memory:")
	for _, x := range []struct {
		name string
		v    *Verdict
	}{{"points", m.Points}, {"logged", m.Logged}} {
		if x.v != nil {
			fmt.Fprintf(&b, " %s (%s) %d executions, bugs %s;", x.name, x.v.Strategy, x.v.Stats.Executions, keyList(x.v))
		}
	}
	if m.Skipped != "" {
		fmt.Fprintf(&b, " not compared: %s;", m.Skipped)
	}
	if !m.Strict {
		b.WriteString(" not strict (a failure after a plain access);")
	}
	return strings.TrimSuffix(b.String(), ";")
}
