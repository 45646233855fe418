package syncmodel

// A primitive is a family of operation kinds that share state: mutexes,
// condition variables, channels, ... Each one is a file of this package
// that holds, in one place, its state (embedded in World, and in thread
// when it keeps something per thread), what it needs of the world to
// behave (enabledness, effect, result, misuse, what a blocked thread waits
// for, the annotation of a pending operation), the dependency between two
// of its operations, and its part of the fingerprint, the clone and the
// reset. World dispatches to it through kindTable, indexed by Kind; the
// rules that cross primitives (classes, memory against objects, exit and
// time against everything) are in depend.go and time.go.
//
// Adding a primitive takes: its kind constants and their names in op.go
// and its API names in api.go (append: the numbers are the wire protocol,
// never renumber them); one file with its state type, embedded in World
// (and a record embedded in thread, if it keeps something per thread), and
// a type implementing primitive, whose kinds method gives a kindSpec per
// kind; that type in families below; its records counted in
// TestFingerprintCoversEveryField, which fails until they are.

// primitive is what the world needs of a family of kinds. Every method but
// kinds is called only for an operation of one of the family's kinds
// (mustPrecede and dependent: the first one, resp. both). Methods that take
// an *Op are given the thread's pending operation, which they must not
// change; the others take it by value, since a pointer passed through an
// interface escapes.
type primitive interface {
	// kinds lists the kinds the primitive serves, with what the world
	// needs to know of each without running it.
	kinds() []kindSpec

	// check reports why op cannot be the next operation of thread tid
	// (th), which owes no second half (th.next is 0), nil if it can. It
	// must not change the world.
	check(w *World, tid int, th *thread, op Op) error
	// checkNext reports why op cannot be what thread tid (th) reports
	// while it owes the second half th.next, one of the primitive's
	// kinds: nil only if op is that second half.
	checkNext(w *World, tid int, th *thread, op Op) error

	// enabled reports whether thread tid can perform its pending
	// operation *op now. A misuse is enabled, so that exec reports it.
	enabled(w *World, tid int, op *Op) bool
	// choices is World.Choices for live thread tid (th) with a pending
	// operation.
	choices(w *World, tid int, th *thread) int
	// exec applies op, enabled, for thread tid (see World.Execute). It
	// returns the result, or a misuse message, or an error for a bad
	// argument; with a message or an error it has changed nothing.
	exec(w *World, tid int, op *Op, choice int) (Result, string, error)
	// waitFor is World.WaitFor for thread tid whose pending operation *op
	// is not enabled.
	waitFor(w *World, tid int, op *Op) Wait
	// effect returns the annotation (Op.Eff) of thread tid's pending
	// operation *op in the current state (World.Annotated), for a kind
	// whose spec says stateEff.
	effect(w *World, tid int, op *Op) Effect

	// dependent decides two operations of the primitive of different
	// threads, of one class (see Dependent; ordered: DependentInOrder).
	dependent(ta int, a *Op, tb int, b *Op, ordered bool) bool
	// mustPrecede is MustPrecede for a, an operation of the primitive of
	// a kind whose spec says precedes, and b of another thread.
	mustPrecede(ta int, a *Op, tb int, b *Op) bool

	// fingerprint hashes the primitive's state (see World.Fingerprint):
	// its objects and what it keeps per thread.
	fingerprint(w *World, f fp) fp
	// clone makes dst's part of the primitive's state, a shallow copy of
	// src's, a deep one.
	clone(dst, src *World)
	// reset puts the primitive's state back to its zero value, as in a
	// new world, keeping the room it has grown (its maps, emptied): see
	// World.Reset. (Its part of the threads is reset with them.)
	reset(w *World)
}

// families lists every primitive. Its order is that of their parts in a
// fingerprint.
var families = [...]primitive{
	&threadPrim{}, &mutexPrim{}, &spinPrim{}, &condPrim{}, &semPrim{}, &rwlockPrim{}, &barrierPrim{}, &oncePrim{},
	&goMutexPrim{}, &goRWPrim{}, &wgPrim{}, &chanPrim{}, &timePrim{}, &annotPrim{}, &bubblePrim{},
}

// kindSpec is what the world knows of a kind without running it. The zero
// values are the common case: a synchronization operation on Obj alone,
// that does not wait, annotated the same whatever the state.
type kindSpec struct {
	kind  Kind
	class opClass // the kinds it may depend on (see Dependent)
	// objects: the objects it uses (see numObjects).
	objects objUse
	// mayWait: it may wait for something else than a lock, or polls (see
	// mayWait).
	mayWait bool
	// stateEff: its annotation depends on the state (StateAnnotated);
	// only then is the primitive's effect asked, the annotation of the
	// other kinds being Effect{Known: true}.
	stateEff bool
	// precedes: an operation of the kind may have to precede another
	// (MustPrecede); only then is the primitive's mustPrecede asked.
	precedes bool
	// chooses: an operation of the kind may offer choices (World.Choices);
	// only then is the primitive's choices asked.
	chooses bool
}

// kindInfo is kindTable's entry for a kind: its spec and its primitive.
type kindInfo struct {
	kindSpec
	prim primitive
	fam  uint8 // the index of prim in families
}

// kindTable maps every valid kind to its primitive. The entry of
// KindInvalid has no primitive: a synchronization operation on Obj for
// Dependent and SharesObject.
var kindTable = func() (t [NumKinds]kindInfo) {
	for i, p := range families {
		for _, s := range p.kinds() {
			t[s.kind] = kindInfo{kindSpec: s, prim: p, fam: uint8(i)}
		}
	}
	return t
}()

// infoOf returns the entry of kind k, that of KindInvalid if k is out of
// range.
func infoOf(k Kind) *kindInfo {
	if int(k) >= len(kindTable) {
		k = KindInvalid
	}
	return &kindTable[k]
}

// primOf returns the primitive of valid kind k.
func primOf(k Kind) primitive { return kindTable[k].prim }

// basePrim gives a primitive the common behaviour of a kind, which it
// overrides where its kinds differ: no requirement on the thread's state,
// the generic second half (the kind on the object the first half named),
// always enabled, no choice, waiting for nothing, an annotation known at
// once, dependent on what uses a common object, never known to precede.
type basePrim struct{}

func (*basePrim) check(*World, int, *thread, Op) error { return nil }

func (*basePrim) checkNext(w *World, tid int, th *thread, op Op) error {
	if op.Kind != th.next || op.Obj != th.nextObj {
		return errNext(tid, th, op)
	}
	return nil
}

func (*basePrim) enabled(*World, int, *Op) bool                     { return true }
func (*basePrim) choices(*World, int, *thread) int                  { return 0 }
func (*basePrim) waitFor(*World, int, *Op) Wait                     { return Wait{} }
func (*basePrim) effect(*World, int, *Op) Effect                    { return Effect{Known: true} }
func (*basePrim) dependent(_ int, a *Op, _ int, b *Op, _ bool) bool { return sharesObject(a, b) }
func (*basePrim) mustPrecede(int, *Op, int, *Op) bool               { return false }

// noState is embedded by a primitive that keeps no state of its own.
type noState struct{}

func (*noState) fingerprint(_ *World, f fp) fp { return f }
func (*noState) clone(_, _ *World)             {}
func (*noState) reset(*World)                  {}

// done returns what exec returns for code or a misuse message.
func done(code int64, msg string) (Result, string, error) {
	if msg != "" {
		return Result{}, msg, nil
	}
	return Result{Code: code}, "", nil
}
