package oracle

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/stdbg/stdbg/engine/search"
)

// Spins against spins unrolled (docs/spin.md). A thread whose spin turn
// changed nothing waits for a write to what it read: a reduction, which the
// strategies compared with running every schedule all share, since it is
// the executor's. checkSpin checks it against what it claims to keep: it
// runs every schedule of the program, and every schedule of the same
// program with each spin unrolled to spinUnroll turns, after which its
// thread blocks for ever (Program.Unroll). Every behaviour in which a spin
// ends has one in which its thread looks only once, when what it waits for
// is there, so spinUnroll turns keep all of them; where a spin did not end
// the unrolled program blocks, which is no behaviour of the program (its
// thread would spin on), and those outcomes are left out. The unrolled
// program runs with no turn of any loop waiting (C: STDBG_SPIN=0; the
// interpreter marks no loop of it), so that a loop the rule would wrongly
// take for a spin (a retry, which counts its looks and is the same in both
// programs) shows there the bug it hides in the program. So:
//
//   - every bug of the unrolled program that no spun-out thread is part of
//     is a bug of the program (else "missed": a bug the rule hid);
//   - every assertion failure, crash, misuse or race of the program is
//     one of the unrolled program (else "extra": a bug the rule made up);
//     so is every deadlock and leak, unless some execution of the
//     unrolled program spun out (the program's leak of a thread while
//     another spins on is then one whose unrolled twin lists the
//     spun-out thread too);
//   - a livelock of the program (threads that spin for ever) has an
//     execution of the unrolled program that spun out (else "extra").
//
// A thread that spins is left out of the threads a leak lists, as the
// unrolled twin's spun-out thread is. A retry (a bounded loop that counts
// its looks) is the same in both programs, and must keep its bug.

// spinUnroll is the turns of an unrolled spin.
const spinUnroll = 2

// checkSpin compares the program p, which has spins, with its spins
// unrolled, both searched by running every schedule.
func checkSpin(ctx context.Context, p *Program, l Limits) ([]Disagreement, error) {
	real, unrolled := p.Clone(), p.Clone()
	real.Unroll, unrolled.Unroll = 0, spinUnroll
	vr, places, err := spinVerdict(ctx, real, l)
	if err != nil || vr == nil {
		return nil, err
	}
	vu, _, err := spinVerdict(ctx, unrolled, l)
	if err != nil || vu == nil {
		return nil, err
	}
	kr, spinsForEver := spinKeys(vr, places, false)
	ku, spunOut := spinKeys(vu, places, true)
	raced := kr["data-race"] || ku["data-race"]
	var out []Disagreement
	for _, k := range sortedSet(ku) {
		if !kr[k] && (!raced || k == "data-race") {
			out = append(out, Disagreement{"spin", "missed", k + " (with its spins unrolled)"})
		}
	}
	for _, k := range sortedSet(kr) {
		blocking := strings.HasPrefix(k, "deadlock@") || strings.HasPrefix(k, "leak@")
		if !ku[k] && (!raced || k == "data-race") && !(blocking && spunOut) {
			out = append(out, Disagreement{"spin", "extra", k + " (not with its spins unrolled)"})
		}
	}
	if spinsForEver && !spunOut {
		out = append(out, Disagreement{"spin", "extra", "a livelock, but no spin unrolled spun out"})
	}
	return out, nil
}

// spinVerdict runs every schedule of p; a search that did not end within
// the limits gives no verdict (nil). places are where p's spins are, in
// its bugs' terms.
func spinVerdict(ctx context.Context, p *Program, l Limits) (*Verdict, spinPlaces, error) {
	t, release, err := newTarget(p)
	if err != nil {
		return nil, spinPlaces{}, err
	}
	defer release()
	places, err := spinPlacesOf(p, t)
	if err != nil {
		return nil, places, err
	}
	v, err := exploreCounted(ctx, t, search.NewDFS(), l, false, l.MaxExecutions)
	if err != nil {
		if ctx.Err() != nil {
			return nil, places, err
		}
		return nil, places, fmt.Errorf("every schedule of %s: %w", map[bool]string{false: "the program", true: "the program unrolled"}[p.Unroll > 0], err)
	}
	if !v.Complete || v.Stats.MaxDepthHit > 0 {
		return nil, places, nil
	}
	return v, places, nil
}

// spinPlaces are the places of a program's spins in the Where of its
// bugs: C source lines (the spins' own and the one where an unrolled
// spin's thread blocks), or Go sites.
type spinPlaces struct {
	lines map[string]bool // ":LINE"
	sites map[string]bool // "@sSITE"
}

func spinPlacesOf(p *Program, t target) (spinPlaces, error) {
	pl := spinPlaces{lines: map[string]bool{}, sites: map[string]bool{}}
	switch p.Lang {
	case C:
		src, err := CSource(p, "")
		if err != nil {
			return pl, err
		}
		for i, line := range strings.Split(src, "\n") {
			if strings.Contains(line, spinMark) || strings.Contains(line, spunOutMark) {
				pl.lines[":"+strconv.Itoa(i+1)] = true
			}
		}
	case Go:
		gt, ok := t.(*goTarget)
		if !ok {
			return pl, fmt.Errorf("not an interpreted Go program")
		}
		var visit func(ops []gop)
		visit = func(ops []gop) {
			for _, op := range ops {
				if op.Code == "spin" {
					pl.sites["@s"+strconv.Itoa(op.site)] = true
				}
				visit(op.body)
			}
		}
		for _, th := range gt.g.threads {
			visit(th)
		}
	}
	return pl, nil
}

// at reports whether one thread's part of a deadlock's or leak's Where
// ("API@file:LINE" in C, "T1@s4" in Go) is at a spin.
func (pl spinPlaces) at(part string) bool {
	if i := strings.LastIndexByte(part, ':'); i >= 0 && pl.lines[part[i:]] {
		return true
	}
	if i := strings.LastIndexByte(part, '@'); i >= 0 && pl.sites[part[i:]] {
		return true
	}
	return false
}

// spinKeys returns the bugs of v, the verdict of the program or (unrolled)
// of the program unrolled, in the terms both share (see checkSpin), and
// whether a thread spun (a livelock of a spin; a thread that spun out
// blocked). A deadlock or leak of the unrolled program that lists a
// spun-out thread is left out; the program's spinning threads are left out
// of its leaks (Go names every unfinished thread); data races are one.
func spinKeys(v *Verdict, pl spinPlaces, unrolled bool) (map[string]bool, bool) {
	out := map[string]bool{}
	spun := false
	for _, b := range v.Bugs {
		o := b.Outcome
		where := o.Where
		switch o.Kind {
		case search.Livelock:
			spun = true
			continue
		case search.Deadlock, search.Leak:
			var kept []string
			at := false
			for _, part := range strings.Split(where, ",") {
				if pl.at(part) {
					at = true
					continue
				}
				kept = append(kept, part)
			}
			if at && unrolled || len(kept) == 0 {
				spun = spun || at
				continue
			}
			sort.Strings(kept)
			where = strings.Join(kept, ",")
		case search.DataRace:
			out["data-race"] = true
			continue
		}
		out[o.Kind.String()+"@"+where] = true
	}
	return out, spun
}

func sortedSet(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// withoutSpinLivelocks returns v without the livelocks of threads that
// spin for ever, and its keys.
func withoutSpinLivelocks(v *Verdict) (*Verdict, []string) {
	c := *v
	c.Bugs = map[string]search.Bug{}
	for k, b := range v.Bugs {
		if b.Outcome.Kind != search.Livelock {
			c.Bugs[k] = b
		}
	}
	return &c, c.Keys()
}
