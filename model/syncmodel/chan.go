package syncmodel

import (
	"fmt"
	"slices"
)

// chanState is the world's Go channels, by object.
type chanState struct {
	chans map[uint64]*channel
}

// chanPrim is the primitive of Go channels and select. A send that finds
// neither a receiver nor room parks (it offers its value) and owes its
// ChanWake; a receive, and a select with receive cases only and no
// default, does not park: it is disabled until a case is ready (see
// docs/go-dependency.md). A select with a send case parks when no case is
// ready, and owes its ChanWake.
type chanPrim struct{}

func (*chanPrim) kinds() []kindSpec {
	return []kindSpec{
		{kind: ChanMake, precedes: true},
		{kind: ChanSend, mayWait: true, stateEff: true, precedes: true},
		{kind: ChanRecv, mayWait: true, stateEff: true, precedes: true},
		{kind: ChanClose, stateEff: true, precedes: true},
		{kind: ChanLen, precedes: true},
		{kind: Select, objects: objCases, mayWait: true, stateEff: true, precedes: true, chooses: true},
		{kind: ChanWake, objects: objCasesSet, mayWait: true, precedes: true},
	}
}

func (*chanPrim) check(_ *World, tid int, _ *thread, op Op) error {
	switch {
	case op.Kind == Select && (op.Arg < 0 || op.Arg > 1):
		return fmt.Errorf("syncmodel: thread %d: %s: default flag %d (want 0 or 1)", tid, op, op.Arg)
	case op.Kind == Select && len(op.Cases) > MaxCases:
		return fmt.Errorf("syncmodel: thread %d: select with %d cases (at most %d)", tid, len(op.Cases), MaxCases)
	case tid > MaxChanThread:
		return fmt.Errorf("syncmodel: thread %d: channel operations are limited to threads 1..%d", tid, MaxChanThread)
	case op.Kind == ChanWake:
		return fmt.Errorf("syncmodel: thread %d: %s without its first half", tid, op)
	}
	return nil
}

// checkNext: the ChanWake of a parked operation has its object, and the
// cases of the select that parked (none for a send or a receive).
func (*chanPrim) checkNext(_ *World, tid int, th *thread, op Op) error {
	if op.Kind != th.next || op.Obj != th.nextObj || len(op.Cases) != len(th.nextCases) ||
		(th.parkedOp == Select) != (op.Cases != nil) {
		return errNext(tid, th, op)
	}
	return nil
}

func (*chanPrim) enabled(w *World, tid int, op *Op) bool {
	switch op.Kind {
	case ChanSend:
		return op.Obj != 0
	case ChanRecv:
		// A receive does not park: it waits, disabled, until a value or
		// the close is there (see caseReady and docs/go-dependency.md).
		return w.caseReady(plainCase(*op))
	case Select:
		return !recvOnly(op) || w.numReady(op.Cases) > 0
	case ChanWake:
		return w.threads[tid-1].woken
	}
	return true
}

func (*chanPrim) choices(w *World, _ int, th *thread) int {
	if th.pending.Kind == Select {
		if n := w.numReady(th.pending.Cases); n > 1 {
			return n
		}
	}
	return 0
}

func (*chanPrim) exec(w *World, tid int, op *Op, choice int) (Result, string, error) {
	switch op.Kind {
	case ChanMake:
		return done(0, w.chanMake(*op))
	case ChanSend, ChanRecv, Select:
		return w.chanOp(tid, *op, choice)
	case ChanClose:
		return done(w.chanClose(*op), "")
	case ChanLen:
		return done(w.chanLen(*op), "")
	}
	return done(w.chanWake(tid))
}

func (*chanPrim) waitFor(w *World, tid int, op *Op) Wait { return w.chanWait(tid, op) }

// effect: whom a send or a receive completes with, and whether it finds a
// buffer strictly between empty and full (see chanEffect). Which case of a
// select proceeds is a choice made when it runs: its effect names every
// parked thread one of its ready cases would complete (Ends), and, since
// whichever case it is may complete a parked select, that select's other
// channels, which it then touches too: a receive on one of them no longer
// finds the select there (Links). A close ends every thread parked on its
// channel (Ends).
func (*chanPrim) effect(w *World, _ int, op *Op) Effect {
	switch op.Kind {
	case ChanSend, ChanRecv:
		return w.chanEffect(op)
	case Select:
		return Effect{Known: true, Links: w.selectLinks(*op), Ends: w.selectEnds(op.Cases)}
	case ChanClose:
		return Effect{Known: true, Ends: w.closeEnds(op.Obj)}
	}
	return Effect{Known: true}
}

// ends reports whether operation op, annotated in the state where it
// runs, may complete or end the parked operation of thread t: t is its
// partner, or among the threads it ends (Effect.Ends), or its effect is
// not known. A make is taken to end every thread (a make of a channel
// with threads parked on it is a misuse).
func ends(op *Op, t int) bool {
	return op.Kind == ChanMake || !op.Eff.Known || op.Eff.Partner == t || slices.Contains(op.Eff.Ends, t)
}

// dependent decides two channel operations of different threads, using
// their effects in the state where they run (Op.Eff) when the world filled
// them in:
//
//   - Operations on channels they do not share (counting the channels of a
//     parked select an operation completes with) are independent.
//   - Two ChanLen are independent; two ChanWake are independent (a wake
//     only lets its own thread go on).
//   - A ChanWake of thread t depends only on the operations that may
//     complete or end t's parked operation (see ends: a send or receive
//     whose partner is t, a select with a ready case whose partner is t, a
//     close of a channel t is parked on). Once t was woken, nothing else
//     changes what its wake does: it commutes with everything. (It was
//     dependent on every select and close of its channels: the select of
//     another thread then ordered the wake after it, and every later
//     operation of t with it, which hid their races with the select, and
//     DPOR missed the schedules in which they come first.)
//   - A receive does not park (it waits, disabled, for a value), so an
//     unbuffered send parks and the receive that takes its value completes
//     it: the send, the receive and the sender's wake are the rendezvous,
//     in the one order possible. A parked send and a receive that takes
//     another sender's value commute (senders are served in order).
//   - A send into a buffer and a receive from it commute when both find the
//     buffer neither empty nor full (Eff.Mid).
//   - Any other pair on a common channel is dependent: two sends, two
//     receives, closes, makes, selects, and lengths against the rest.
func (*chanPrim) dependent(ta int, a *Op, tb int, b *Op, _ bool) bool {
	if a.Kind == ChanLen && b.Kind == ChanLen || a.Kind == ChanWake && b.Kind == ChanWake {
		return false
	}
	if !touchShare(a, b) {
		return false
	}
	if b.Kind == ChanWake {
		ta, a, tb, b = tb, b, ta, a
	}
	if a.Kind == ChanWake {
		return ends(b, ta)
	}
	if b.Kind == ChanSend {
		ta, a, tb, b = tb, b, ta, a
	}
	if a.Kind != ChanSend || b.Kind != ChanRecv || !a.Eff.Known || !b.Eff.Known {
		return true
	}
	switch {
	case a.Eff.Mid && b.Eff.Mid:
		return false
	case a.Eff.Parks && b.Eff.Partner != 0 && b.Eff.Partner != ta:
		return false
	}
	return true
}

// mustPrecede: an unbuffered send that parked, and the receive that took
// its value (Eff.Partner); a channel operation that may complete or end
// the parked operation of thread tb, and tb's ChanWake (tb is parked when
// the operation runs, so its wake is disabled until an operation ends its
// park: this one, or another that competes with it and is ordered with
// it). An operation whose effect is not known is not known to precede.
func (*chanPrim) mustPrecede(ta int, a *Op, tb int, b *Op) bool {
	if b.Kind == ChanWake {
		return a.Kind != ChanMake && a.Eff.Known && ends(a, tb)
	}
	if a.Kind == ChanSend {
		// The receive took this send's parked value on an unbuffered
		// channel: it could not run before the send offered it.
		return b.Kind == ChanRecv && b.Obj == a.Obj && a.Arg == 0 && a.Eff.Parks && b.Eff.Partner == ta
	}
	return false
}

func (*chanPrim) fingerprint(w *World, f fp) fp {
	for _, k := range sortedKeys(w.chans) {
		c := w.chans[k]
		f.u(k)
		f.i(c.cap)
		f.i(c.len)
		f.b(c.closed)
		for _, q := range [][]parkedOn{c.sendq, c.recvq} {
			f.n(len(q))
			for _, p := range q {
				f.n(p.tid)
				f.n(p.cas)
			}
		}
	}
	return f
}

func (*chanPrim) clone(dst, src *World) { dst.chans = cloneMap(src.chans, (*channel).clone) }

func (*chanPrim) reset(w *World) { w.chanState = chanState{chans: keepMap(w.chans)} }

// channel is a Go channel: its buffer is only counted (the runtime holds the
// values), and the threads parked on it wait in FIFO queues, as in Go.
type channel struct {
	cap    int64
	len    int64
	closed bool
	sendq  []parkedOn // parked senders, oldest first
	recvq  []parkedOn // parked receivers, oldest first
}

// parkedOn is a thread parked on a channel through one of its cases.
type parkedOn struct {
	tid int
	cas int
}

func (c *channel) clone() *channel {
	x := *c
	x.sendq = slices.Clone(c.sendq)
	x.recvq = slices.Clone(c.recvq)
	return &x
}

// channel returns channel obj, creating it open and empty with the given
// capacity on first use.
func (w *World) channel(obj uint64, capacity int64) *channel {
	c := w.chans[obj]
	if c == nil {
		c = &channel{cap: max(capacity, 0)}
		put(&w.chans, obj, c)
	}
	return c
}

// plainCase is the case a ChanSend or ChanRecv operates through.
func plainCase(op Op) Case {
	return Case{Send: op.Kind == ChanSend, Chan: op.Obj, Cap: op.Arg}
}

// opCases returns the cases of a ChanSend, ChanRecv or Select.
func opCases(op Op) []Case {
	if op.Kind == Select {
		return op.Cases
	}
	return []Case{plainCase(op)}
}

// caseReady reports whether case c can proceed now (a send on a closed
// channel is ready: it proceeds by panicking).
func (w *World) caseReady(c Case) bool {
	if c.Chan == 0 {
		return false
	}
	ch := w.chans[c.Chan]
	if ch == nil {
		return c.Send && c.Cap > 0
	}
	if c.Send {
		return ch.closed || len(ch.recvq) > 0 || ch.len < ch.cap
	}
	return ch.len > 0 || len(ch.sendq) > 0 || ch.closed
}

// readyCases returns the indices of the ready cases of op, in order.
func (w *World) readyCases(cases []Case) []int {
	var ready []int
	for k, c := range cases {
		if w.caseReady(c) {
			ready = append(ready, k)
		}
	}
	return ready
}

// numReady counts the ready cases without allocating.
func (w *World) numReady(cases []Case) int {
	n := 0
	for _, c := range cases {
		if w.caseReady(c) {
			n++
		}
	}
	return n
}

// chanOp executes a ChanSend, ChanRecv or Select: one ready case proceeds
// (the choice-th when several are ready), else the default case, else the
// thread parks.
func (w *World) chanOp(tid int, op Op, choice int) (Result, string, error) {
	cases := opCases(op)
	ready := w.readyCases(cases)
	var r ChanResult
	switch {
	case len(ready) == 1:
		k := ready[0]
		var msg string
		if r, msg = w.proceed(tid, cases[k], k); msg != "" {
			return Result{}, msg, nil
		}
	case len(ready) > 1:
		if choice < 0 || choice >= len(ready) {
			return Result{}, "", fmt.Errorf("syncmodel: thread %d: case choice %d out of range 0..%d (%d cases are ready)",
				tid, choice, len(ready)-1, len(ready))
		}
		k := ready[choice]
		var msg string
		if r, msg = w.proceed(tid, cases[k], k); msg != "" {
			return Result{}, msg, nil
		}
	case op.Kind == Select && op.Arg == 1:
		r = ChanResult{Via: ViaDefault, Case: -1}
	default:
		w.park(tid, op, cases)
		r = ChanResult{Via: ViaParked}
	}
	return Result{Code: r.Code()}, "", nil
}

// proceed performs ready case k of thread tid.
func (w *World) proceed(tid int, c Case, k int) (ChanResult, string) {
	if c.Send {
		if ch := w.chans[c.Chan]; ch != nil && ch.closed {
			return ChanResult{Via: ViaPanic, Case: k}, ""
		}
		ch := w.channel(c.Chan, c.Cap)
		if len(ch.recvq) > 0 {
			p := ch.recvq[0]
			w.wakeParked(p.tid, ChanResult{Via: ViaWoken, Case: p.cas, OK: true}, false)
			return ChanResult{Via: ViaPartner, Case: k, Partner: p.tid, PartnerCase: p.cas}, ""
		}
		ch.len++
		return ChanResult{Via: ViaBuffer, Case: k}, ""
	}
	ch := w.channel(c.Chan, c.Cap)
	switch {
	case ch.len > 0:
		r := ChanResult{Via: ViaBuffer, Case: k, OK: true}
		if len(ch.sendq) > 0 {
			// The oldest parked sender's value takes the freed slot.
			p := ch.sendq[0]
			w.wakeParked(p.tid, ChanResult{Via: ViaWoken, Case: p.cas, OK: true}, false)
			r.Partner, r.PartnerCase = p.tid, p.cas
		} else {
			ch.len--
		}
		return r, ""
	case len(ch.sendq) > 0:
		p := ch.sendq[0]
		w.wakeParked(p.tid, ChanResult{Via: ViaWoken, Case: p.cas, OK: true}, false)
		return ChanResult{Via: ViaPartner, Case: k, OK: true, Partner: p.tid, PartnerCase: p.cas}, ""
	}
	return ChanResult{Via: ViaClosed, Case: k}, ""
}

// park queues tid on the channel of every non-nil case; it must report
// ChanWake next.
func (w *World) park(tid int, op Op, cases []Case) {
	for k, c := range cases {
		if c.Chan == 0 {
			continue
		}
		ch := w.channel(c.Chan, c.Cap)
		if c.Send {
			ch.sendq = append(ch.sendq, parkedOn{tid: tid, cas: k})
		} else {
			ch.recvq = append(ch.recvq, parkedOn{tid: tid, cas: k})
		}
	}
	th := &w.threads[tid-1]
	th.next, th.nextObj, th.nextCases = ChanWake, op.Obj, op.Cases
	th.parkedOp = op.Kind
	th.woken, th.wakeCode, th.wakeClosed = false, 0, false
}

// wakeParked wakes parked thread tid with result r and takes it off every
// channel queue. closedSend marks a sender woken by a close: its wake
// panics.
func (w *World) wakeParked(tid int, r ChanResult, closedSend bool) {
	th := &w.threads[tid-1]
	th.woken, th.wakeCode, th.wakeClosed = true, r.Code(), closedSend
	cases := th.nextCases
	if th.parkedOp != Select {
		cases = []Case{{Send: th.parkedOp == ChanSend, Chan: th.nextObj}}
	}
	for _, c := range cases {
		ch := w.chans[c.Chan]
		if ch == nil {
			continue
		}
		drop := func(p parkedOn) bool { return p.tid == tid }
		ch.sendq = slices.DeleteFunc(ch.sendq, drop)
		ch.recvq = slices.DeleteFunc(ch.recvq, drop)
	}
}

// chanWake performs the second half of a parked channel operation.
func (w *World) chanWake(tid int) (int64, string) {
	th := &w.threads[tid-1]
	code := th.wakeCode
	if th.wakeClosed {
		// A send parked on a channel that was then closed panics as it
		// wakes, as in Go.
		code = ChanResult{Via: ViaPanic, Case: DecodeChanResult(th.wakeCode).Case}.Code()
	}
	th.clearNext()
	return code, ""
}

func (w *World) chanMake(op Op) string {
	switch {
	case op.Obj == 0:
		return "make of a channel at address 0"
	case op.Arg < 0:
		return fmt.Sprintf("make of channel %#x with negative capacity %d", op.Obj, op.Arg)
	}
	if ch := w.chans[op.Obj]; ch != nil && len(ch.sendq)+len(ch.recvq) > 0 {
		return fmt.Sprintf("make of channel %#x while threads are blocked on it", op.Obj)
	}
	put(&w.chans, op.Obj, &channel{cap: op.Arg})
	return ""
}

// chanClose closes channel op.Obj and returns the close's result: 0, or
// a ChanResult of ViaPanic for a close of a nil or closed channel, which
// panics in Go and changes nothing.
func (w *World) chanClose(op Op) int64 {
	if op.Obj == 0 {
		return ChanResult{Via: ViaPanic, Case: -1}.Code()
	}
	if ch := w.chans[op.Obj]; ch != nil && ch.closed {
		return ChanResult{Via: ViaPanic, Case: -1}.Code()
	}
	ch := w.channel(op.Obj, op.Arg)
	ch.closed = true
	for len(ch.recvq) > 0 {
		p := ch.recvq[0]
		w.wakeParked(p.tid, ChanResult{Via: ViaWoken, Case: p.cas}, false)
	}
	for len(ch.sendq) > 0 {
		p := ch.sendq[0]
		w.wakeParked(p.tid, ChanResult{Via: ViaWoken, Case: p.cas}, true)
	}
	return 0
}

func (w *World) chanLen(op Op) int64 {
	if ch := w.chans[op.Obj]; ch != nil && op.Obj != 0 {
		return ch.len
	}
	return 0
}

// chanWait explains why tid cannot go on with op: a ChanSend on a nil
// channel, a ChanRecv or a receive-only Select waiting for a value, or the
// ChanWake of a parked operation.
func (w *World) chanWait(tid int, op *Op) Wait {
	th := &w.threads[tid-1]
	kind, obj, cases := op.Kind, op.Obj, op.Cases
	if op.Kind == ChanWake {
		kind, obj, cases = th.parkedOp, th.nextObj, th.nextCases
	}
	if kind == Select {
		wt := Wait{What: "select", Detail: "no case is ready"}
		for _, c := range cases {
			if c.Chan != 0 {
				wt.Obj = c.Chan
				break
			}
		}
		if wt.Obj == 0 {
			wt.Detail = "no case on a non-nil channel: blocks for ever"
		}
		return wt
	}
	if obj == 0 {
		return Wait{What: "channel", Detail: "nil channel: blocks for ever"}
	}
	wt := Wait{Obj: obj, What: "channel"}
	ch := w.chans[obj]
	switch {
	case kind == ChanSend && (ch == nil || ch.cap == 0):
		wt.Detail = "no receiver"
	case kind == ChanSend:
		wt.Detail = fmt.Sprintf("buffer full (%d of %d)", ch.len, ch.cap)
	case ch == nil && op.Arg == 0 || ch != nil && ch.cap == 0:
		wt.Detail = "no sender"
	default:
		wt.Detail = "buffer empty"
	}
	return wt
}

// recvOnly reports whether a select has neither a send case nor a default
// case: like a plain receive, it waits (disabled) until a case is ready
// instead of parking.
func recvOnly(op *Op) bool {
	if op.Arg == 1 {
		return false
	}
	for _, c := range op.Cases {
		if c.Send {
			return false
		}
	}
	return true
}

// chanEffect fills in the effect of a plain send or receive in the current
// state (see Effect).
func (w *World) chanEffect(op *Op) Effect {
	eff := Effect{Known: true}
	ch := w.chans[op.Obj]
	if op.Obj == 0 || ch != nil && ch.closed {
		return eff
	}
	if op.Kind == ChanSend {
		switch {
		case ch != nil && len(ch.recvq) > 0:
			w.partner(&eff, ch.recvq[0].tid)
		case ch == nil && op.Arg > 0:
			// An empty buffer: the send fills its first slot.
		case ch == nil || ch.len >= ch.cap:
			eff.Parks = true
		default:
			eff.Mid = ch.len >= 1 && ch.len <= ch.cap-1 && len(ch.sendq) == 0
		}
		return eff
	}
	switch {
	case ch == nil:
	case len(ch.sendq) > 0:
		w.partner(&eff, ch.sendq[0].tid)
	case ch.len > 0:
		eff.Mid = ch.len <= ch.cap-1 && len(ch.recvq) == 0
	}
	return eff
}

// partner records that an operation completes the parked operation of
// thread p, and the channels it thereby touches if p parked in a select.
func (w *World) partner(eff *Effect, p int) {
	eff.Partner = p
	th := &w.threads[p-1]
	if th.parkedOp == Select {
		for _, c := range th.nextCases {
			if c.Chan != 0 {
				eff.Links = append(eff.Links, c.Chan)
			}
		}
	}
}

// selectEnds returns the parked threads that the ready cases of a select
// with these cases would complete, each once (nil if none): the receiver
// a send hands its value to, the sender whose value a receive takes or
// moves into the buffer.
func (w *World) selectEnds(cases []Case) []int {
	var ends []int
	for _, c := range cases {
		ch := w.chans[c.Chan]
		if c.Chan == 0 || ch == nil || ch.closed {
			continue
		}
		q := ch.sendq
		if c.Send {
			q = ch.recvq
		}
		if len(q) > 0 && !slices.Contains(ends, q[0].tid) {
			ends = append(ends, q[0].tid)
		}
	}
	return ends
}

// closeEnds returns the threads parked on channel ch, whose operations a
// close of it ends (nil if none).
func (w *World) closeEnds(ch uint64) []int {
	c := w.chans[ch]
	if ch == 0 || c == nil || c.closed {
		return nil
	}
	var ends []int
	for _, q := range [][]parkedOn{c.recvq, c.sendq} {
		for _, p := range q {
			if !slices.Contains(ends, p.tid) {
				ends = append(ends, p.tid)
			}
		}
	}
	return ends
}

// selectLinks returns the channels of every parked select that one of the
// cases of select op could complete (see Effect.Links).
func (w *World) selectLinks(op Op) []uint64 {
	var links []uint64
	for _, c := range op.Cases {
		ch := w.chans[c.Chan]
		if c.Chan == 0 || ch == nil {
			continue
		}
		q := ch.sendq
		if c.Send {
			q = ch.recvq
		}
		for _, p := range q {
			th := &w.threads[p.tid-1]
			if th.parkedOp != Select {
				continue
			}
			for _, pc := range th.nextCases {
				if pc.Chan != 0 && !slices.Contains(links, pc.Chan) {
					links = append(links, pc.Chan)
				}
			}
		}
	}
	return links
}
