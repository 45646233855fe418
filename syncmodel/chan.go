package syncmodel

import (
	"fmt"
	"slices"
)

// Case is one case of a select: a send or a receive on a channel.
type Case struct {
	// Send is true for a send case, false for a receive case.
	Send bool
	// Chan identifies the channel; 0 is a nil channel, never ready.
	Chan uint64
	// Cap is the channel's capacity, with which the model creates a
	// channel it has not seen yet.
	Cap int64
}

// String returns "0x10<-" for a send and "<-0x10" for a receive.
func (c Case) String() string {
	if c.Send {
		return fmt.Sprintf("%#x<-", c.Chan)
	}
	return fmt.Sprintf("<-%#x", c.Chan)
}

// ChanVia says how a channel operation, a select or its wake completed: it
// tells the runtime where the value goes or comes from.
type ChanVia uint8

// How channel operations complete.
const (
	// ViaBuffer: a send put its value at the tail of the buffer; a
	// receive took the value at its head. For a receive, a Partner is a
	// parked sender that the receive woke, whose value moves to the tail
	// of the buffer.
	ViaBuffer ChanVia = iota + 1
	// ViaPartner: the value went straight to (send) or came straight from
	// (receive) Partner, a parked thread, which the operation woke.
	ViaPartner
	// ViaClosed: a receive on a closed, empty channel: the zero value,
	// with OK false.
	ViaClosed
	// ViaParked: no case could proceed; the thread parked on every
	// channel of its cases and must report ChanWake next.
	ViaParked
	// ViaWoken: the result of a ChanWake. For a receive the value was
	// delivered by the thread that woke it (OK true), or the channel was
	// closed (OK false).
	ViaWoken
	// ViaDefault: a select with no ready case ran its default case.
	ViaDefault
)

var viaNames = [...]string{
	ViaBuffer: "buffer", ViaPartner: "partner", ViaClosed: "closed",
	ViaParked: "parked", ViaWoken: "woken", ViaDefault: "default",
}

// String returns the name of v, e.g. "buffer".
func (v ChanVia) String() string {
	if int(v) < len(viaNames) && viaNames[v] != "" {
		return viaNames[v]
	}
	return fmt.Sprintf("via(%d)", uint8(v))
}

// ChanResult is what a channel operation (ChanSend, ChanRecv), a Select or a
// ChanWake returns, packed into Result.Code by Code.
type ChanResult struct {
	Via ChanVia
	// Case is the index of the case that proceeded, for a Select and for
	// the ChanWake after a Select; 0 for plain sends and receives; -1
	// for the default case.
	Case int
	// OK reports, for a receive, that a value was received; false means
	// the channel is closed.
	OK bool
	// Partner is the other thread of a ViaPartner exchange, or the parked
	// sender whose value a ViaBuffer receive moved into the buffer; 0 if
	// none.
	Partner int
	// PartnerCase is the case through which Partner was parked (0 for a
	// plain send or receive).
	PartnerCase int
}

// Limits of what a ChanResult can encode, and so of the model: selects have
// at most MaxCases cases and channel partners ids up to MaxChanThread.
const (
	MaxCases      = 1<<16 - 2
	MaxChanThread = 1<<20 - 1
)

// Code packs r into a Result.Code: bits 0-2 Via, bit 3 OK, bits 4-19 Case+1,
// bits 20-39 Partner, bits 40-55 PartnerCase. It is never negative.
func (r ChanResult) Code() int64 {
	c := int64(r.Via&7) | int64(r.Case+1)&0xffff<<4 | int64(r.Partner)&MaxChanThread<<20 |
		int64(r.PartnerCase)&0xffff<<40
	if r.OK {
		c |= 1 << 3
	}
	return c
}

// DecodeChanResult unpacks a Result.Code made by ChanResult.Code.
func DecodeChanResult(code int64) ChanResult {
	return ChanResult{
		Via:         ChanVia(code & 7),
		OK:          code&(1<<3) != 0,
		Case:        int(code>>4&0xffff) - 1,
		Partner:     int(code >> 20 & MaxChanThread),
		PartnerCase: int(code >> 40 & 0xffff),
	}
}

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
// channel is ready: proceeding is the misuse).
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
			return ChanResult{}, fmt.Sprintf("send on closed channel %#x", c.Chan)
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
// channel queue. closedSend marks a sender woken by a close: its wake is the
// misuse.
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
	if th.wakeClosed {
		c := th.nextObj
		if th.parkedOp == Select {
			c = th.nextCases[DecodeChanResult(th.wakeCode).Case].Chan
		}
		return 0, fmt.Sprintf("send on closed channel %#x (closed while thread %d was blocked sending)", c, tid)
	}
	code := th.wakeCode
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

func (w *World) chanClose(op Op) string {
	if op.Obj == 0 {
		return "close of nil channel"
	}
	if ch := w.chans[op.Obj]; ch != nil && ch.closed {
		return fmt.Sprintf("close of closed channel %#x", op.Obj)
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
	return ""
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
func (w *World) chanWait(tid int, op Op) Wait {
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
func recvOnly(op Op) bool {
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
func (w *World) chanEffect(op Op) Effect {
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

// isChanKind reports whether k is a channel operation (including Select and
// ChanWake).
func isChanKind(k Kind) bool {
	return k >= ChanMake && k <= ChanWake
}
