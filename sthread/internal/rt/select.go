package rt

import (
	"reflect"

	"github.com/stdbg/stdbg/model/syncmodel"
)

// A Case is one case of a select: a send (Chan.SendCase), a receive
// (Chan.RecvCase) or the default case (Default).
type Case struct {
	dir     caseDir
	core    chanCore      // nil for a nil channel or the default case
	ch      reflect.Value // the real channel, for a select outside a check
	val     any           // the value to send
	deliver func(v any, ok bool)
}

type caseDir uint8

const (
	caseSend caseDir = iota + 1
	caseRecv
	caseDefault
)

// SendCase returns the case of a Select that sends v on c, like case c <- v.
//
//go:norace
func (c Chan[T]) SendCase(v T) Case {
	sc := Case{dir: caseSend, ch: reflect.ValueOf(c.C), val: v}
	if c.S != nil {
		sc.core = c.S
	}
	return sc
}

// RecvCase returns the case of a Select that receives from c, like case
// *v, *ok = <-c. v and ok may be nil to discard them.
//
//go:norace
func (c Chan[T]) RecvCase(v *T, ok *bool) Case {
	sc := Case{dir: caseRecv, ch: reflect.ValueOf(c.C), deliver: func(x any, got bool) {
		if v != nil {
			*v, _ = x.(T)
		}
		if ok != nil {
			*ok = got
		}
	}}
	if c.S != nil {
		sc.core = c.S
	}
	return sc
}

// Default returns the default case of a Select, which runs when no other
// case can proceed.
//
//go:norace
func Default() Case { return Case{dir: caseDefault} }

// Select waits until one of the cases can proceed, performs it and returns
// its index in cases, like a select statement; when several can, it picks
// one (under a check, the search tries each in turn). With a Default case
// it does not wait. Without cases it blocks for ever. It panics if there is
// more than one Default case.
//
//go:norace
func Select(cases []Case) int {
	if hooked.Load() {
		if i, ok := selectChecked(cases); ok {
			return i
		}
	}
	return selectReal(cases)
}

//go:norace
func selectReal(cases []Case) int {
	rc := make([]reflect.SelectCase, len(cases))
	for i, c := range cases {
		switch c.dir {
		case caseSend:
			v := reflect.ValueOf(c.val)
			if !v.IsValid() {
				v = reflect.Zero(c.ch.Type().Elem())
			}
			rc[i] = reflect.SelectCase{Dir: reflect.SelectSend, Chan: c.ch, Send: v}
		case caseRecv:
			rc[i] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: c.ch}
		default:
			rc[i] = reflect.SelectCase{Dir: reflect.SelectDefault}
		}
	}
	chosen, v, ok := reflect.Select(rc)
	if c := cases[chosen]; c.dir == caseRecv {
		var x any
		if ok {
			x = v.Interface()
		}
		c.deliver(x, ok)
	}
	return chosen
}

//go:norace
func selectChecked(cases []Case) (int, bool) {
	th, ok := EnterFree()
	if !ok {
		return 0, false
	}
	var buf [FramesCap]uintptr
	return th.SelectAt(cases, syncmodel.Op{Kind: syncmodel.Select, API: syncmodel.APISelect}, th.Capture(buf[:])), true
}

// SelectAt runs a select of th under the checker, reported at pcs, and
// returns the index of the case that proceeded. op is the Select operation
// (its API tells who selects), whose cases and default flag it fills in.
//
//go:norace
func (th *Thread) SelectAt(cases []Case, op syncmodel.Op, pcs []uintptr) int {
	ex := th.ex
	mc, index, def, vals := modelCases(ex, cases)
	op.Cases = mc
	if def >= 0 {
		op.Arg = 1
	}
	th.selVals = vals
	r := syncmodel.DecodeChanResult(th.PointAt(op, pcs))
	switch r.Via {
	case syncmodel.ViaDefault:
		th.selVals = nil
		return def
	case syncmodel.ViaParked:
		op.Kind, op.Arg = syncmodel.ChanWake, 0
		r = syncmodel.DecodeChanResult(th.Again(op))
	}
	th.selVals = nil
	if r.Via == syncmodel.ViaPanic {
		// The send case on a closed channel proceeded, as Go's select
		// may let it: it panics.
		th.chanPanic(panicSend, op.Cases[r.Case].Chan)
	}
	c := cases[index[r.Case]]
	if c.dir == caseSend {
		switch r.Via {
		case syncmodel.ViaBuffer:
			c.core.pushAny(ex, c.val)
		case syncmodel.ViaPartner:
			ex.threads[r.Partner-1].recvVal = c.val
		}
		return index[r.Case]
	}
	var x any
	switch r.Via {
	case syncmodel.ViaBuffer:
		x = c.core.popAny(ex)
		if r.Partner != 0 {
			c.core.pushAny(ex, c.core.partnerAny(ex, r.Partner, r.PartnerCase))
		}
	case syncmodel.ViaPartner:
		x = c.core.partnerAny(ex, r.Partner, r.PartnerCase)
	case syncmodel.ViaWoken:
		x = th.recvVal
		th.recvVal = nil
	}
	c.deliver(x, r.OK)
	return index[r.Case]
}

// modelCases returns the model's cases of a select in ex (registering
// their channels), the index in cases of each, the index of the default
// case (-1: none) and the values of the send cases, by model case (nil:
// none). It panics if there is more than one default case.
//
//go:norace
func modelCases(ex *Execution, cases []Case) (mc []syncmodel.Case, index []int, def int, vals []any) {
	mc = make([]syncmodel.Case, 0, len(cases))
	index = make([]int, 0, len(cases))
	def = -1
	for i, c := range cases {
		if c.dir == caseDefault {
			if def >= 0 {
				panic("sthread.Select: more than one Default case")
			}
			def = i
			continue
		}
		mcase := syncmodel.Case{Send: c.dir == caseSend}
		if c.core != nil {
			mcase.Chan, mcase.Cap = c.core.model(ex)
		}
		if c.dir == caseSend {
			if vals == nil {
				vals = make([]any, len(cases))
			}
			vals[len(mc)] = c.val
		}
		mc = append(mc, mcase)
		index = append(index, i)
	}
	return mc, index, def, vals
}
