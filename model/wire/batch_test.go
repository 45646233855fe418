package wire

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stdbg/stdbg/model/syncmodel"
)

// TestRunBatch checks the layout of RUN_BATCH against the C side's
// (stdbg_wire.h: header, n, pad, then n struct stdbg_run).
func TestRunBatch(t *testing.T) {
	runs := []Run{{Tid: 1, Code: 2}, {Tid: 3, Code: -16}}
	b := EncodeRunBatch(nil, runs)
	if len(b) != msgHdr+8+16*len(runs) {
		t.Fatalf("%d bytes", len(b))
	}
	le := binary.LittleEndian
	if MsgType(le.Uint16(b)) != MsgRunBatch || int(le.Uint32(b[4:])) != len(b)-msgHdr || le.Uint32(b[msgHdr:]) != 2 {
		t.Fatalf("header % x", b[:msgHdr+8])
	}
	for i, r := range runs {
		p := b[msgHdr+8+16*i:]
		if int(le.Uint32(p)) != r.Tid || int64(le.Uint64(p[8:])) != r.Code {
			t.Errorf("entry %d: % x", i, p[:16])
		}
	}
}

// TestAppendStep checks how the checker splits a batch's published
// messages into steps.
func TestAppendStep(t *testing.T) {
	done := EncodeDone(nil, Done{Tid: 2})
	pending := EncodePending(nil, Pending{Tid: 1, Frames: []uint64{7}})
	step := EncodeStep(nil)
	cat := func(parts ...[]byte) []byte {
		var out []byte
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		buf    []byte
		used   int // bytes of the step, its mark included
		marked bool
		short  bool
		step   int // events of the step
		events int // what Decode returns for all of buf: the marks are not events
	}{
		{"empty", nil, 0, false, false, 0, 0},
		{"a hand-over", cat(pending, done), len(pending) + len(done), false, false, 2, 2},
		{"one step", cat(pending, step), len(pending) + msgHdr, true, false, 1, 1},
		{"the first of two", cat(done, pending, step, pending, step), len(done) + len(pending) + msgHdr, true, false, 2, 3},
		{"a mark alone", cat(step, pending), msgHdr, true, false, 0, 1},
		{"cut short", cat(pending, step)[:len(pending)-1], 0, false, true, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d Decoder
			evs, used, marked, err := d.AppendStep(nil, tc.buf)
			if tc.short != errors.Is(err, ErrShort) || (!tc.short && err != nil) {
				t.Fatalf("error %v", err)
			}
			if used != tc.used || marked != tc.marked || len(evs) != tc.step {
				t.Errorf("got %d bytes, marked %v, %d events; want %d, %v, %d", used, marked, len(evs), tc.used, tc.marked, tc.step)
			}
			for _, ev := range evs {
				switch pe := ev.(type) {
				case *Pending:
					if pe.Tid != 1 || len(pe.Frames) != 1 || pe.Frames[0] != 7 {
						t.Errorf("pending decoded as %+v", *pe)
					}
				case Pending:
					t.Errorf("a decoder handed a Pending value, want a pointer: %+v", pe)
				}
			}
			if evs, err := Decode(tc.buf); !tc.short && (err != nil || len(evs) != tc.events) {
				t.Errorf("decoding: %d events, %v; want %d", len(evs), err, tc.events)
			}
		})
	}
}

// TestDecoderReuse checks that a decoder told to Reuse hands the next
// messages in the room of the earlier ones, with their own contents, and
// that frames handed earlier are left alone.
func TestDecoderReuse(t *testing.T) {
	var d Decoder
	msg := func(tid int, pc uint64) []byte {
		return EncodePending(nil, Pending{Tid: tid, Op: syncmodel.Op{Kind: syncmodel.MutexLock, Obj: pc}, Frames: []uint64{pc}})
	}
	first, err := d.Append(nil, append(msg(1, 0x10), msg(2, 0x20)...))
	if err != nil || len(first) != 2 {
		t.Fatalf("%v, %v", first, err)
	}
	p1 := first[0].(*Pending)
	frames := p1.Frames
	d.Reuse()
	second, err := d.Append(nil, msg(3, 0x30))
	if err != nil || len(second) != 1 {
		t.Fatalf("%v, %v", second, err)
	}
	p3 := second[0].(*Pending)
	if p3 != p1 {
		t.Error("the message after Reuse is not in the room of the first")
	}
	if p3.Tid != 3 || p3.Op.Obj != 0x30 || len(p3.Frames) != 1 || p3.Frames[0] != 0x30 {
		t.Errorf("message after Reuse: %+v", *p3)
	}
	if frames[0] != 0x10 {
		t.Errorf("the first message's frames changed: %x", frames)
	}
	// Without Reuse, messages keep their room.
	third, _ := d.Append(nil, msg(4, 0x40))
	if third[0].(*Pending) == p3 || p3.Tid != 3 {
		t.Error("a message without Reuse took the room of one handed before")
	}
}
