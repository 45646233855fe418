package syncmodel

import "fmt"

// What a channel operation names and returns: the cases of a select, and
// the result of a channel operation packed into Result.Code. Both are part
// of what runtimes read; the channels themselves are in chan.go.

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
	// ViaPanic: the operation panics, as Go makes it, and changes
	// nothing: a send (or the send case of a select) on a closed channel,
	// the wake of a send parked on a channel that was then closed, a close
	// of a closed or nil channel. The runtime raises Go's panic, which a
	// deferred recover may take.
	ViaPanic
)

var viaNames = [...]string{
	ViaBuffer: "buffer", ViaPartner: "partner", ViaClosed: "closed",
	ViaParked: "parked", ViaWoken: "woken", ViaDefault: "default", ViaPanic: "panic",
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
