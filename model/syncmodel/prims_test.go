package syncmodel

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEveryKindHasOnePrimitive checks the registry of primitives: every
// valid kind is served by exactly one primitive, which kindTable names,
// no primitive serves an invalid kind, and every primitive serves some.
func TestEveryKindHasOnePrimitive(t *testing.T) {
	servedBy := map[Kind][]string{}
	for i, p := range families {
		name := fmt.Sprintf("%T", p)
		if len(p.kinds()) == 0 {
			t.Errorf("%s serves no kind", name)
		}
		for _, s := range p.kinds() {
			if !s.kind.Valid() {
				t.Errorf("%s serves invalid kind %s", name, s.kind)
				continue
			}
			servedBy[s.kind] = append(servedBy[s.kind], name)
			if e := kindTable[s.kind]; e.fam != uint8(i) || e.kindSpec != s {
				t.Errorf("kindTable[%s] = %+v, want %s's entry %+v", s.kind, e, name, s)
			}
		}
	}
	for k := KindInvalid + 1; k.Valid(); k++ {
		if len(servedBy[k]) != 1 {
			t.Errorf("%s is served by %v, want one primitive", k, servedBy[k])
		}
	}
	if kindTable[KindInvalid] != (kindInfo{}) {
		t.Errorf("KindInvalid has an entry: %+v", kindTable[KindInvalid])
	}
	if len(kindTable) != NumKinds {
		t.Errorf("kindTable has %d entries for %d kinds", len(kindTable), NumKinds)
	}
}

// TestKindSpecs checks the kinds' specs against the rules they stand for,
// written out: which kinds may wait (mayWait), which are annotated from
// the state (StateAnnotated), and which use more than Obj.
func TestKindSpecs(t *testing.T) {
	for _, tc := range []struct {
		what  string
		has   func(Kind) bool
		kinds []Kind
	}{
		{"may wait", mayWait, []Kind{ChanSend, ChanRecv, Select, ChanWake, WGWait, WGWake, GoCondWait, GoCondWake,
			CondWait, ThreadJoin, SemWait, SemTimedwait, BarrierWait, BarrierLeave, Yield, Sleep, TimerWait, Exit,
			BubbleWait, BubbleEnd}},
		{"state annotated", StateAnnotated, []Kind{ChanSend, ChanRecv, ChanClose, WGAdd, GoCondWake, RWUnlock, GoRWRUnlock, Select}},
		{"may have to precede", func(k Kind) bool { return infoOf(k).precedes }, []Kind{ThreadExit, MutexUnlock, CondWait,
			SpinUnlock, GoMutexUnlock, GoCondWait, RWUnlock, GoRWUnlock, GoRWRUnlock, OnceEnd, WGAdd,
			ChanMake, ChanSend, ChanRecv, ChanClose, ChanLen, Select, ChanWake}},
		{"uses Obj2", func(k Kind) bool { return infoOf(k).objects == objObj2 }, []Kind{CondWait, CondReacquire}},
		{"uses Obj2 if set", func(k Kind) bool { return infoOf(k).objects == objObj2Set }, []Kind{GoCondWait, GoCondWake}},
		{"uses cases", func(k Kind) bool { return infoOf(k).objects >= objCases }, []Kind{Select, ChanWake}},
		{"not a synchronization operation", func(k Kind) bool { return infoOf(k).class != classSync },
			[]Kind{ThreadCreate, ThreadJoin, ThreadDetach, ThreadExit, Yield, Sleep, Read, Write, Choose, Exit, ThreadStart,
				BubbleEnter, BubbleWait, BubbleEnd}},
	} {
		for k := KindInvalid; int(k) < NumKinds+2; k++ {
			if got, want := tc.has(k), slices.Contains(tc.kinds, k); got != want {
				t.Errorf("%s %s: %v, want %v", k, tc.what, got, want)
			}
		}
	}
}

// TestResetAfterRandomExecutions checks that every primitive's reset
// forgets all it knew: after random executions that leave state in every
// primitive, a reset world prints as a new one does (its maps empty, which
// print as nil ones do).
func TestResetAfterRandomExecutions(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	fresh := fmt.Sprintf("%+v", *NewWorld())
	w := NewWorld()
	n := 300
	if testing.Short() {
		n = 50
	}
	for range n {
		w.SetSpuriousWakeups(r.IntN(2) == 0)
		for range 100 {
			tid := 1 + r.IntN(w.NumThreads())
			op := Op{Kind: Kind(1 + r.IntN(NumKinds-1)), Obj: uint64(r.IntN(3)) * 0x10, Obj2: uint64(r.IntN(3)) * 0x10,
				Arg: int64(r.IntN(4)) - 1}
			if op.Kind == Select {
				op.Cases = []Case{{Send: r.IntN(2) == 0, Chan: 0x10}, {Chan: 0x20, Cap: 1}}
			}
			if th := w.thread(tid); th.next != 0 && r.IntN(2) == 0 {
				op = Op{Kind: th.next, Obj: th.nextObj, Obj2: th.condMutex, Cases: th.nextCases}
			}
			if r.IntN(8) == 0 {
				op = Op{Kind: ThreadCreate}
			}
			if w.SetPending(tid, op) == nil {
				w.Execute(tid, r.IntN(2))
			}
		}
		w.Reset()
		if got := fmt.Sprintf("%+v", *w); got != fresh {
			t.Fatalf("reset world %s\nnew world   %s", got, fresh)
		}
	}
}

// TestOnlyPrecedingKindsPrecede checks that a primitive's mustPrecede is
// false for every kind its spec does not mark precedes, which MustPrecede
// does not ask: a rule added without the mark would be lost.
func TestOnlyPrecedingKindsPrecede(t *testing.T) {
	var others []Op
	for k := KindInvalid + 1; k.Valid(); k++ {
		for _, obj := range []uint64{0, 0x10} {
			for _, eff := range []Effect{{}, {Known: true, Partner: 1, Parks: true, Writer: true, Own: true}} {
				others = append(others, Op{Kind: k, Obj: obj, Obj2: obj, Arg: int64(obj) - 1, Eff: eff},
					Op{Kind: k, Obj: obj, Arg: 1, Cases: []Case{{Chan: obj}}, Eff: eff})
			}
		}
	}
	for k := KindInvalid + 1; k.Valid(); k++ {
		if kindTable[k].precedes {
			continue
		}
		for _, a := range []Op{{Kind: k, Obj: 0x10, Obj2: 0x10, Arg: -1, Eff: Effect{Known: true, Parks: true, Writer: true}},
			{Kind: k, Arg: 2, Cases: []Case{{Chan: 0x10}}}} {
			for _, b := range others {
				if primOf(k).mustPrecede(1, &a, 2, &b) || primOf(k).mustPrecede(2, &a, 1, &b) {
					t.Errorf("%s must precede %s, but its spec does not say precedes", a, b)
				}
			}
		}
	}
}

// TestOnlyChoosingKindsChoose checks that a primitive's choices is 0 for
// every kind its spec does not mark chooses, which World.Choices does not
// ask: a choice added without the mark would never be explored.
func TestOnlyChoosingKindsChoose(t *testing.T) {
	w := NewWorld()
	w.SetSpuriousWakeups(true)
	// Two channels with a value in their buffer: a select on both has
	// two ready cases.
	run(t, w, []step{
		{tid: 1, op: send(ch1, 1), code: bufSent},
		{tid: 1, op: send(ch2, 1), code: bufSent},
	})
	for k := KindInvalid + 1; k.Valid(); k++ {
		if kindTable[k].chooses {
			continue
		}
		for _, op := range []Op{{Kind: k, Obj: ch1, Obj2: ch2, Arg: 3},
			{Kind: k, Arg: 2, Cases: []Case{rc(ch1, 1), rc(ch2, 1)}}} {
			th := &thread{pending: op, hasPending: true}
			if n := primOf(k).choices(w, 1, th); n != 0 {
				t.Errorf("%s offers %d choices, but its spec does not say chooses", op, n)
			}
		}
	}
}
