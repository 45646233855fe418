// Package wire is stdbg's runtime-checker protocol (version 1): the message
// formats and the shared-memory mailbox through which a runtime (the C
// interposition library, or a Go runtime in another process) reports the
// operations of its threads and the checker answers which thread runs next.
//
// docs/protocol.md describes the layout; target/ctarget/csrc/stdbg_wire.h is the C
// mirror of the constants and structures here.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/stdbg/stdbg/model/syncmodel"
)

// Version is the protocol version spoken by this package.
const Version = 1

// Magic marks an initialised mailbox slot ("SDBG").
const Magic = 0x47424453

// Mailbox geometry; must match stdbg_wire.h.
const (
	SlotSize = 512 * 1024
	HdrSize  = 128
	DownCap  = 4096
	UpCap    = SlotSize - HdrSize - DownCap
)

// Slot flags sent with FORK.
const (
	FlagFastExit = 1  // leave with _exit at once after exit and failures
	FlagStacks   = 2  // attach a full backtrace to every PENDING
	FlagState    = 4  // send a STATE message with every hand-over (stateful search)
	FlagNoSpin   = 8  // the checker shares the target's CPU: neither side spins while waiting
	FlagOneCPU   = 16 // the target's threads share one CPU: they hand over without spinning
	FlagReuse    = 32 // the child answers RESET by starting the next execution itself (C library)
	FlagNoCtx    = 64 // the pool's threads hand over through the kernel, not as contexts (C library)
)

// MsgType identifies a message.
type MsgType uint16

// Message types.
const (
	MsgPending  MsgType = 1
	MsgFailure  MsgType = 2
	MsgStack    MsgType = 3
	MsgNote     MsgType = 4
	MsgDone     MsgType = 5
	MsgState    MsgType = 6
	MsgStep     MsgType = 7 // in a batch, the end of one step's messages
	MsgHello    MsgType = 8
	MsgRun      MsgType = 16
	MsgFork     MsgType = 17
	MsgQuit     MsgType = 18
	MsgReset    MsgType = 19
	MsgRunBatch MsgType = 20
)

// FailureKind says what kind of failure a runtime reported.
type FailureKind uint16

// Failure kinds.
const (
	FailAssert  FailureKind = 1 // assert()
	FailSignal  FailureKind = 2 // a fatal signal
	FailAbort   FailureKind = 3 // abort()
	FailUser    FailureKind = 4 // stdbg_assert / sthread.Assert
	FailRuntime FailureKind = 5 // the runtime gave up
	FailPanic   FailureKind = 6 // a Go panic
	FailRace    FailureKind = 7 // a data race found by Go's race detector; Message is its report
	FailMisuse  FailureKind = 8 // misuse of an API the runtime checks itself (Func: the call, e.g. "t.Logf")
	// FailCannotJudge: code that the runtime does not control acted on
	// the program's objects (a goroutine started before the check), so
	// that the execution can neither go on nor be judged: not a bug of
	// the program. The checker stops with search.ErrCannotJudge.
	FailCannotJudge FailureKind = 9
	// FailTimedOut and FailCut: a runtime that watches its own steps (Go's,
	// told their bounds by Slot.SetBounds) ended a step that had not
	// reached its next scheduling point at the transition timeout, or at
	// the deadline (the budget's end); Message is how long it ran (a
	// time.Duration's text). The checker reads them as the TimedOut
	// events it makes itself when a step outlasts its bounds.
	FailTimedOut FailureKind = 10
	FailCut      FailureKind = 11
)

// Pending reports that a thread reached a scheduling point.
type Pending struct {
	Tid    int
	OSTid  int // kernel thread id (0 if not meaningful)
	Op     syncmodel.Op
	Frames []uint64 // Frames[0]: return address of the call; more with FlagStacks
	// Spin is what the runtime saw of the thread's own state since its
	// last scheduling point, for the checker to tell iterations of spin
	// loops that changed nothing (docs/spin.md). The zero Spin claims
	// nothing.
	Spin Spin
	// Operand is what the operation, an atomic store or read-modify-write
	// of an instrumented C program, stores: for traces to show, never
	// part of the model (its state, its dependency relation). Zero when
	// not reported.
	Operand Operand
}

// OperandOp says what an atomic operation does with its Operand.
type OperandOp uint32

// The operations of an Operand (OPERAND_* of target/ctarget/csrc/stdbg_wire.h).
const (
	OperandNone     OperandOp = iota // nothing reported
	OperandStore                     // stores V
	OperandExchange                  // stores V, returns what was there
	OperandAdd                       // adds V
	OperandSub                       // subtracts V
	OperandAnd                       // ands V in
	OperandOr                        // ors V in
	OperandXor                       // xors V in
	OperandNand                      // stores ~(old & V)
	OperandCAS                       // stores W if memory holds V
)

// Operand is what an atomic store or read-modify-write of a C program
// stores, as its runtime reports it before the operation runs: values of
// the access's size, sign-extended to 64 bits.
type Operand struct {
	Op OperandOp
	// V is the value stored, the operand of a read-modify-write, or the
	// value a compare-and-swap expects.
	V int64
	// W is the value a compare-and-swap stores if it succeeds.
	W int64
}

// Spin is what a runtime tells of a thread at a scheduling point so that
// the checker can tell an iteration of a loop that changed nothing
// (docs/spin.md). Its zero value claims nothing: the checker then takes
// the thread's last transition for one that may have changed anything.
type Spin struct {
	// State, when not 0, fingerprints the thread's own state at this
	// point (in C its registers and stack, in Go the head of a loop that
	// can only change what the checker sees): two points of a thread
	// with the same State, between which every transition was Clean,
	// are the same state of the thread.
	State uint64
	// Clean: since its previous scheduling point the thread did nothing
	// the checker does not see that may change its own state or another
	// thread's (a write or read of memory not reported, a call into
	// code the runtime cannot see into).
	Clean bool
	// Unchanged: the thread's previous operation, a memory write in the
	// model (a compare-and-swap, an exchange), left memory as it was.
	Unchanged bool
	// Poked lists the threads whose own state (their stacks) this
	// transition read or wrote: what they did so far is not an
	// iteration that changed nothing.
	Poked []int
}

// Failure reports an assertion failure, crash or abort; the execution is
// over.
type Failure struct {
	Tid     int
	Kind    FailureKind
	Signal  int
	Addr    uint64 // faulting address of a signal
	Frames  []uint64
	Message string
	File    string
	Line    int
	Func    string
}

// Stack answers a stack request for a thread that did not reach its next
// scheduling point in time.
type Stack struct {
	Tid    int
	Frames []uint64
}

// Done reports that a thread finished (its exit was the transition).
type Done struct{ Tid int }

// EncodeDone appends a DONE message to buf.
func EncodeDone(buf []byte, d Done) []byte {
	buf = appendHdr(buf, MsgDone, 4)
	return le.AppendUint32(buf, uint32(d.Tid))
}

// Note is a diagnostic line from the runtime.
type Note struct{ Text string }

// EncodeNote appends a NOTE message to buf.
func EncodeNote(buf []byte, n Note) []byte {
	buf = appendHdr(buf, MsgNote, len(n.Text))
	return append(buf, n.Text...)
}

// NoteOutside begins the text of a Note by which a runtime says what
// outside the model may act on the program's objects (goroutines it does
// not control, channels fed from outside), or, followed by nothing, that
// nothing does any more: while something does, the executor judges no
// deadlock nor leak (see executor.Outsider).
const NoteOutside = "outside the model: "

// Module is one loaded object of the target, from HELLO.
type Module struct {
	Bias, Start, End uint64
	Path             string
}

// Hello is the fork server's greeting.
type Hello struct {
	Version int
	Pid     int
	Modules []Module
}

// Run is the checker's answer: the thread that runs next and the result
// of its operation. Tid 0 means no thread is left to run.
type Run struct {
	Tid  int
	Code int64
}

const msgHdr = 8

var le = binary.LittleEndian

// ErrShort is returned when a message is cut off.
var ErrShort = errors.New("truncated message")

// Decode parses a sequence of runtime messages (the up buffer of a slot)
// into values of type Pending, Failure, Stack, Note, Done or State.
func Decode(buf []byte) ([]Event, error) { return DecodeAppend(nil, buf) }

// DecodeAppend is Decode appending the messages to out, so that a caller
// can reuse one slice for every hand-over.
func DecodeAppend(out []Event, buf []byte) ([]Event, error) { return (*Decoder)(nil).Append(out, buf) }

// A Decoder decodes runtime messages as DecodeAppend does, but hands each
// PENDING message as a *Pending, and takes the messages and their stack
// frames from blocks it allocates a few hundred at a time instead of one
// allocation per message (they stay valid as long as they are
// referenced). The zero Decoder is ready to use; a nil one allocates
// every message on its own and hands Pending values.
type Decoder struct {
	frames  []uint64
	pending []Pending
	// block is the block pending was cut from, for Reuse.
	block []Pending
	// The room of ACCESS messages, handed as *Accesses: acc holds their
	// entries, accs the messages, each used up to its length.
	acc  []Access
	accs []Accesses
}

// Reuse tells the decoder that the *Pending values it handed so far are no
// longer referenced (their frames may be): the next messages take their
// room instead of a new block's. A caller that consumes each hand-over's
// events before it decodes the next one calls it before every decoding.
func (d *Decoder) Reuse() {
	if d == nil {
		return
	}
	if d.block != nil {
		clear(d.block[:len(d.block)-len(d.pending)])
		d.pending = d.block
	}
	d.acc, d.accs = d.acc[:0], d.accs[:0]
}

// frameBlock is how many frames a Decoder allocates at once, pendingBlock
// how many PENDING messages.
const (
	frameBlock   = 512
	pendingBlock = 128
)

// next returns the room of the next message in the decoder's current
// block.
func (d *Decoder) next() *Pending {
	if len(d.pending) == 0 {
		d.pending = make([]Pending, pendingBlock)
		d.block = d.pending
	}
	p := &d.pending[0]
	d.pending = d.pending[1:]
	return p
}

// framesFor returns room for n frames.
func (d *Decoder) framesFor(n int) []uint64 {
	if d == nil || n > frameBlock/4 {
		return make([]uint64, n)
	}
	if len(d.frames) < n {
		d.frames = make([]uint64, frameBlock)
	}
	f := d.frames[:n:n]
	d.frames = d.frames[n:]
	return f
}

// Append decodes the messages in buf and appends them to out (a batch's
// STEP marks are no messages: they are left out).
func (d *Decoder) Append(out []Event, buf []byte) ([]Event, error) {
	out, _, _, err := d.decode(out, buf, false)
	return out, err
}

// AppendStep decodes the messages of one step of a batch: those in buf up
// to the first STEP mark, appended to out. used is how many bytes of buf
// that took, the mark included; marked is false when buf holds no mark,
// and then all of buf was decoded.
func (d *Decoder) AppendStep(out []Event, buf []byte) (evs []Event, used int, marked bool, err error) {
	return d.decode(out, buf, true)
}

func (d *Decoder) decode(out []Event, buf []byte, toMark bool) ([]Event, int, bool, error) {
	all := len(buf)
	for len(buf) > 0 {
		if len(buf) < msgHdr {
			return out, 0, false, ErrShort
		}
		typ := MsgType(le.Uint16(buf))
		n := int(le.Uint32(buf[4:]))
		if len(buf) < msgHdr+n {
			return out, 0, false, fmt.Errorf("message type %d of %d bytes: %w", typ, n, ErrShort)
		}
		p := buf[msgHdr : msgHdr+n]
		buf = buf[msgHdr+n:]
		var v Event
		var err error
		switch typ {
		case MsgPending:
			if d == nil {
				var pe Pending
				if pe, err = d.decodePending(p); err == nil {
					v = pe
				}
			} else {
				// Decoded in place, in the decoder's block.
				pe := d.next()
				if err = d.decodePendingInto(pe, p); err == nil {
					v = pe
				}
			}
		case MsgFailure:
			v, err = decodeFailure(p)
		case MsgStack:
			v, err = decodeStack(p)
		case MsgState:
			v, err = decodeState(p)
		case MsgAccess:
			if d == nil {
				v, err = decodeAccesses(p, nil)
			} else {
				v, err = d.decodeAccesses(p)
			}
		case MsgNote:
			v = Note{Text: string(p)}
		case MsgStep:
			if toMark {
				return out, all - len(buf), true, nil
			}
			continue
		case MsgDone:
			if len(p) < 4 {
				err = fmt.Errorf("done: %w", ErrShort)
			} else {
				v = Done{Tid: int(le.Uint32(p))}
			}
		default:
			err = fmt.Errorf("unexpected message type %d", typ)
		}
		if err != nil {
			return out, 0, false, err
		}
		out = append(out, v)
	}
	return out, all, false, nil
}

const pendingFixed = 4 + 4 + 2 + 2 + 4 + 8 + 8 + 8

func (d *Decoder) decodePending(p []byte) (Pending, error) {
	var pe Pending
	err := d.decodePendingInto(&pe, p)
	return pe, err
}

// decodePendingInto decodes a PENDING message into *pe.
func (d *Decoder) decodePendingInto(pe *Pending, p []byte) error {
	if len(p) < pendingFixed {
		return fmt.Errorf("pending: %w", ErrShort)
	}
	nf := int(le.Uint32(p[12:]))
	if len(p) < pendingFixed+8*nf {
		return fmt.Errorf("pending frames: %w", ErrShort)
	}
	*pe = Pending{
		Tid:   int(le.Uint32(p)),
		OSTid: int(le.Uint32(p[4:])),
		Op: syncmodel.Op{
			Kind: syncmodel.Kind(le.Uint16(p[8:])),
			API:  syncmodel.API(le.Uint16(p[10:])),
			Obj:  le.Uint64(p[16:]),
			Obj2: le.Uint64(p[24:]),
			Arg:  int64(le.Uint64(p[32:])),
		},
		Frames: d.framesFor(nf),
	}
	for i := range pe.Frames {
		pe.Frames[i] = le.Uint64(p[pendingFixed+8*i:])
	}
	// Optional: the cases of a select (Go runtimes), u32 count then 24
	// bytes each: u8 send, 7 bytes of padding, u64 channel, i64 capacity.
	rest := p[pendingFixed+8*nf:]
	if len(rest) >= 4 {
		nc := int(le.Uint32(rest))
		rest = rest[4:]
		if len(rest) < caseSize*nc {
			return fmt.Errorf("pending select cases: %w", ErrShort)
		}
		if nc > 0 {
			pe.Op.Cases = make([]syncmodel.Case, nc)
		}
		for i := range pe.Op.Cases {
			c := rest[caseSize*i:]
			pe.Op.Cases[i] = syncmodel.Case{Send: c[0] != 0, Chan: le.Uint64(c[8:]), Cap: int64(le.Uint64(c[16:]))}
		}
		rest = rest[caseSize*nc:]
	}
	// Optional, after the cases (their count may be 0): the spin report,
	// u64 state, u32 flags (SpinClean, SpinUnchanged), u32 npoked, then
	// npoked u32 thread ids.
	if len(rest) >= spinFixed {
		pe.Spin.State = le.Uint64(rest)
		flags := le.Uint32(rest[8:])
		pe.Spin.Clean, pe.Spin.Unchanged = flags&SpinClean != 0, flags&SpinUnchanged != 0
		np := int(le.Uint32(rest[12:]))
		rest = rest[spinFixed:]
		if np < 0 || len(rest) < 4*np {
			return fmt.Errorf("pending spin report: %w", ErrShort)
		}
		if np > 0 {
			pe.Spin.Poked = make([]int, np)
			for i := range pe.Spin.Poked {
				pe.Spin.Poked[i] = int(le.Uint32(rest[4*i:]))
			}
		}
		rest = rest[4*np:]
	}
	// Optional, after the spin report (which may claim nothing): the
	// operand of an atomic operation, u32 op, u32 0, i64 v, i64 w.
	if len(rest) >= operandSize {
		pe.Operand = Operand{Op: OperandOp(le.Uint32(rest)), V: int64(le.Uint64(rest[8:])), W: int64(le.Uint64(rest[16:]))}
	}
	return nil
}

const operandSize = 24

// The flags of a PENDING message's spin report (Spin).
const (
	SpinClean     = 1
	SpinUnchanged = 2
)

const spinFixed = 16

const caseSize = 24

// EncodePending appends a PENDING message to buf (used by Go runtimes and
// tests). A select's cases follow the frames, the spin report, when it
// claims something or an operand follows, the cases, and the operand of an
// atomic operation, when there is one, the spin report.
func EncodePending(buf []byte, pe Pending) []byte {
	n := pendingFixed + 8*len(pe.Frames)
	operand := pe.Operand.Op != OperandNone
	spin := pe.Spin.State != 0 || pe.Spin.Clean || pe.Spin.Unchanged || len(pe.Spin.Poked) > 0 || operand
	if len(pe.Op.Cases) > 0 || spin {
		n += 4 + caseSize*len(pe.Op.Cases)
	}
	if spin {
		n += spinFixed + 4*len(pe.Spin.Poked)
	}
	if operand {
		n += operandSize
	}
	buf = appendHdr(buf, MsgPending, n)
	buf = le.AppendUint32(buf, uint32(pe.Tid))
	buf = le.AppendUint32(buf, uint32(pe.OSTid))
	buf = le.AppendUint16(buf, uint16(pe.Op.Kind))
	buf = le.AppendUint16(buf, uint16(pe.Op.API))
	buf = le.AppendUint32(buf, uint32(len(pe.Frames)))
	buf = le.AppendUint64(buf, pe.Op.Obj)
	buf = le.AppendUint64(buf, pe.Op.Obj2)
	buf = le.AppendUint64(buf, uint64(pe.Op.Arg))
	for _, f := range pe.Frames {
		buf = le.AppendUint64(buf, f)
	}
	if len(pe.Op.Cases) > 0 || spin {
		buf = le.AppendUint32(buf, uint32(len(pe.Op.Cases)))
		for _, c := range pe.Op.Cases {
			var send byte
			if c.Send {
				send = 1
			}
			buf = append(buf, send, 0, 0, 0, 0, 0, 0, 0)
			buf = le.AppendUint64(buf, c.Chan)
			buf = le.AppendUint64(buf, uint64(c.Cap))
		}
	}
	if spin {
		var flags uint32
		if pe.Spin.Clean {
			flags |= SpinClean
		}
		if pe.Spin.Unchanged {
			flags |= SpinUnchanged
		}
		buf = le.AppendUint64(buf, pe.Spin.State)
		buf = le.AppendUint32(buf, flags)
		buf = le.AppendUint32(buf, uint32(len(pe.Spin.Poked)))
		for _, t := range pe.Spin.Poked {
			buf = le.AppendUint32(buf, uint32(t))
		}
	}
	if operand {
		buf = le.AppendUint32(buf, uint32(pe.Operand.Op))
		buf = le.AppendUint32(buf, 0)
		buf = le.AppendUint64(buf, uint64(pe.Operand.V))
		buf = le.AppendUint64(buf, uint64(pe.Operand.W))
	}
	return buf
}

const failureFixed = 4 + 2 + 2 + 4 + 4 + 8 + 4 + 4

func decodeFailure(p []byte) (Failure, error) {
	if len(p) < failureFixed {
		return Failure{}, fmt.Errorf("failure: %w", ErrShort)
	}
	nf := int(le.Uint32(p[24:]))
	off := failureFixed + 8*nf
	if len(p) < off {
		return Failure{}, fmt.Errorf("failure frames: %w", ErrShort)
	}
	f := Failure{
		Tid:    int(le.Uint32(p)),
		Kind:   FailureKind(le.Uint16(p[4:])),
		Signal: int(int32(le.Uint32(p[8:]))),
		Line:   int(le.Uint32(p[12:])),
		Addr:   le.Uint64(p[16:]),
		Frames: make([]uint64, nf),
	}
	for i := range f.Frames {
		f.Frames[i] = le.Uint64(p[failureFixed+8*i:])
	}
	var strs [3]string
	for i := range strs {
		if len(p) < off+4 {
			return f, fmt.Errorf("failure strings: %w", ErrShort)
		}
		n := int(le.Uint32(p[off:]))
		off += 4
		if len(p) < off+n {
			return f, fmt.Errorf("failure strings: %w", ErrShort)
		}
		strs[i] = string(p[off : off+n])
		off += n
	}
	f.Message, f.File, f.Func = strs[0], strs[1], strs[2]
	return f, nil
}

// EncodeFailure appends a FAILURE message to buf.
func EncodeFailure(buf []byte, f Failure) []byte {
	n := failureFixed + 8*len(f.Frames) + 12 + len(f.Message) + len(f.File) + len(f.Func)
	buf = appendHdr(buf, MsgFailure, n)
	buf = le.AppendUint32(buf, uint32(f.Tid))
	buf = le.AppendUint16(buf, uint16(f.Kind))
	buf = le.AppendUint16(buf, 0)
	buf = le.AppendUint32(buf, uint32(int32(f.Signal)))
	buf = le.AppendUint32(buf, uint32(f.Line))
	buf = le.AppendUint64(buf, f.Addr)
	buf = le.AppendUint32(buf, uint32(len(f.Frames)))
	buf = le.AppendUint32(buf, 0)
	for _, fr := range f.Frames {
		buf = le.AppendUint64(buf, fr)
	}
	for _, s := range []string{f.Message, f.File, f.Func} {
		buf = le.AppendUint32(buf, uint32(len(s)))
		buf = append(buf, s...)
	}
	return buf
}

func decodeStack(p []byte) (Stack, error) {
	if len(p) < 8 {
		return Stack{}, fmt.Errorf("stack: %w", ErrShort)
	}
	nf := int(le.Uint32(p[4:]))
	if len(p) < 8+8*nf {
		return Stack{}, fmt.Errorf("stack frames: %w", ErrShort)
	}
	s := Stack{Tid: int(le.Uint32(p)), Frames: make([]uint64, nf)}
	for i := range s.Frames {
		s.Frames[i] = le.Uint64(p[8+8*i:])
	}
	return s, nil
}

// EncodeRun appends a RUN message to buf.
func EncodeRun(buf []byte, r Run) []byte {
	return appendRun(appendHdr(buf, MsgRun, runSize), r)
}

// runSize is the size of a RUN payload, and of each entry of a RUN_BATCH
// (struct stdbg_run).
const runSize = 16

// appendRun appends r as a struct stdbg_run: u32 tid, u32 0, i64 code.
func appendRun(buf []byte, r Run) []byte {
	buf = le.AppendUint32(buf, uint32(r.Tid))
	buf = le.AppendUint32(buf, 0)
	return le.AppendUint64(buf, uint64(r.Code))
}

// BatchMax is the most decisions one RUN_BATCH carries.
const BatchMax = 200

// EncodeRunBatch appends a RUN_BATCH message to buf: the decisions of the
// next len(runs) steps (1 to BatchMax), which a runtime of the C library
// follows without handing the mailbox over at each; it marks the end of
// each step's messages but the last with a STEP message (Decoder.AppendStep) and
// publishes them at once (docs/protocol.md, "Batches").
func EncodeRunBatch(buf []byte, runs []Run) []byte {
	buf = appendHdr(buf, MsgRunBatch, 8+runSize*len(runs))
	buf = le.AppendUint32(buf, uint32(len(runs)))
	buf = le.AppendUint32(buf, 0)
	for _, r := range runs {
		buf = appendRun(buf, r)
	}
	return buf
}

// EncodeStep appends a STEP mark to buf (what a runtime writes after each
// step of a batch but the last).
func EncodeStep(buf []byte) []byte { return appendHdr(buf, MsgStep, 0) }

// DecodeRun parses a RUN message.
func DecodeRun(buf []byte) (Run, error) {
	if len(buf) < msgHdr+runSize || MsgType(le.Uint16(buf)) != MsgRun {
		return Run{}, fmt.Errorf("run: %w", ErrShort)
	}
	return Run{Tid: int(le.Uint32(buf[msgHdr:])), Code: int64(le.Uint64(buf[msgHdr+8:]))}, nil
}

// EncodeReset appends a RESET message to buf: the answer that ends an
// execution of a child running with FlagReuse, which puts itself back into
// its state after the fork and reports the next execution's first
// scheduling point.
func EncodeReset(buf []byte) []byte { return appendHdr(buf, MsgReset, 0) }

// EncodeFork returns a FORK command.
func EncodeFork(gen, flags uint32) []byte { return EncodeForkPool(gen, flags, 0) }

// EncodeForkPool returns a FORK command whose child, if it may be reused
// (FlagReuse), keeps pool threads parked for the program's threads 2 to
// pool+1, created before its snapshot.
func EncodeForkPool(gen, flags, pool uint32) []byte {
	buf := appendHdr(nil, MsgFork, 16)
	buf = le.AppendUint32(buf, gen)
	buf = le.AppendUint32(buf, flags)
	buf = le.AppendUint32(buf, pool)
	return le.AppendUint32(buf, 0)
}

// EncodeQuit returns a QUIT command.
func EncodeQuit() []byte { return appendHdr(nil, MsgQuit, 0) }

// DecodeHello parses the fork server's greeting.
func DecodeHello(buf []byte) (Hello, error) {
	if len(buf) < msgHdr+16 || MsgType(le.Uint16(buf)) != MsgHello {
		return Hello{}, fmt.Errorf("hello: %w", ErrShort)
	}
	p := buf[msgHdr:]
	h := Hello{Version: int(le.Uint32(p)), Pid: int(le.Uint32(p[4:]))}
	n := int(le.Uint32(p[8:]))
	off := 16
	for i := 0; i < n; i++ {
		if len(p) < off+28 {
			return h, fmt.Errorf("hello module %d: %w", i, ErrShort)
		}
		m := Module{Bias: le.Uint64(p[off:]), Start: le.Uint64(p[off+8:]), End: le.Uint64(p[off+16:])}
		l := int(le.Uint32(p[off+24:]))
		off += 28
		if len(p) < off+l {
			return h, fmt.Errorf("hello module %d path: %w", i, ErrShort)
		}
		m.Path = string(p[off : off+l])
		off += l
		h.Modules = append(h.Modules, m)
	}
	return h, nil
}

// EncodeHello returns a HELLO message.
func EncodeHello(h Hello) []byte {
	n := 16
	for _, m := range h.Modules {
		n += 28 + len(m.Path)
	}
	buf := appendHdr(nil, MsgHello, n)
	buf = le.AppendUint32(buf, uint32(h.Version))
	buf = le.AppendUint32(buf, uint32(h.Pid))
	buf = le.AppendUint32(buf, uint32(len(h.Modules)))
	buf = le.AppendUint32(buf, 0)
	for _, m := range h.Modules {
		buf = le.AppendUint64(buf, m.Bias)
		buf = le.AppendUint64(buf, m.Start)
		buf = le.AppendUint64(buf, m.End)
		buf = le.AppendUint32(buf, uint32(len(m.Path)))
		buf = append(buf, m.Path...)
	}
	return buf
}

func appendHdr(buf []byte, t MsgType, n int) []byte {
	buf = le.AppendUint16(buf, uint16(t))
	buf = le.AppendUint16(buf, 0)
	return le.AppendUint32(buf, uint32(n))
}

// DecodeFork parses a FORK command.
func DecodeFork(buf []byte) (gen, flags uint32, err error) {
	if len(buf) < msgHdr+8 || MsgType(le.Uint16(buf)) != MsgFork {
		return 0, 0, fmt.Errorf("fork: %w", ErrShort)
	}
	return le.Uint32(buf[msgHdr:]), le.Uint32(buf[msgHdr+4:]), nil
}

// IsReset reports whether buf is a RESET answer.
func IsReset(buf []byte) bool { return len(buf) >= msgHdr && MsgType(le.Uint16(buf)) == MsgReset }

// IsQuit reports whether buf is a QUIT command.
func IsQuit(buf []byte) bool { return len(buf) >= msgHdr && MsgType(le.Uint16(buf)) == MsgQuit }
