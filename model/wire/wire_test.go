package wire

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stdbg/stdbg/model/syncmodel"
)

func TestRoundTrip(t *testing.T) {
	msgs := []Event{
		Pending{Tid: 2, OSTid: 1234, Op: syncmodel.Op{Kind: syncmodel.CondWait, API: syncmodel.APICondWait, Obj: 0x10, Obj2: 0x20, Arg: -3}, Frames: []uint64{0x401000, 0x402000}},
		Failure{Tid: 1, Kind: FailAssert, Signal: 6, Line: 42, Addr: 0, Frames: []uint64{1, 2, 3}, Message: "x > 0", File: "a.c", Func: "main"},
		Pending{Tid: 1, Op: syncmodel.Op{Kind: syncmodel.Yield}, Frames: []uint64{}},
		Pending{Tid: 3, Op: syncmodel.Op{Kind: syncmodel.Select, Arg: 1, Cases: []syncmodel.Case{
			{Send: true, Chan: 0xc000, Cap: 2}, {Chan: 0xd000}, {Chan: 0}}}, Frames: []uint64{7}},
		// Spin reports: alone, after a select's cases, and claiming only
		// a clean transition.
		Pending{Tid: 2, Op: syncmodel.Op{Kind: syncmodel.Write, Obj: 0x601040, Arg: 4}, Frames: []uint64{8},
			Spin: Spin{State: 0xabcdef0123456789, Clean: true, Unchanged: true, Poked: []int{3, 4}}},
		Pending{Tid: 3, Op: syncmodel.Op{Kind: syncmodel.Select, Arg: 1, Cases: []syncmodel.Case{{Chan: 0xd000}}},
			Frames: []uint64{9}, Spin: Spin{State: 1}},
		Pending{Tid: 4, Op: syncmodel.Op{Kind: syncmodel.Yield}, Frames: []uint64{10}, Spin: Spin{Clean: true}},
		// The operand of an atomic operation: alone (after an empty spin
		// report), and after a spin report.
		Pending{Tid: 2, Op: syncmodel.Op{Kind: syncmodel.Write, API: syncmodel.APICAtomicStore, Obj: 0x601040, Arg: 4}, Frames: []uint64{11},
			Operand: Operand{Op: OperandStore, V: 42}},
		Pending{Tid: 3, Op: syncmodel.Op{Kind: syncmodel.Write, API: syncmodel.APICAtomicRMW, Obj: 0x601048, Arg: 8}, Frames: []uint64{12},
			Spin: Spin{Clean: true, Poked: []int{2}}, Operand: Operand{Op: OperandCAS, V: -1, W: 0x7fff12345678}},
		State{Hash: 0xfeedface12345678, Progress: true, Props: []Prop{{Name: "r", Value: 1}, {Name: "cs", Value: -2}}},
		State{Hash: 1},
		Accesses{Tid: 2, List: []Access{{Addr: 0x601040, Size: 4, PC: 0x401234}, {Addr: 0x601048, Size: 8, Write: true, PC: 0x401250}}},
		Accesses{Tid: 3, List: []Access{}},
		Note{Text: NoteOutside + "goroutine 7, started at serve.go:10 before the check"},
		Note{Text: ""},
		Failure{Tid: 1, Kind: FailCannotJudge, Frames: []uint64{9}, Message: "goroutine 7 used a mutex of the checked program"},
	}
	var buf []byte
	for _, m := range msgs {
		switch v := m.(type) {
		case Pending:
			buf = EncodePending(buf, v)
		case Failure:
			buf = EncodeFailure(buf, v)
		case State:
			buf = EncodeState(buf, v)
		case Accesses:
			buf = EncodeAccesses(buf, v)
		case Note:
			buf = EncodeNote(buf, v)
		}
	}
	got, err := Decode(buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, msgs) {
		t.Fatalf("round trip:\n got %#v\nwant %#v", got, msgs)
	}
	// Cutting the buffer anywhere gives the whole messages before the cut
	// and, unless the cut falls between messages, ErrShort.
	for cut := 1; cut < len(buf); cut++ {
		got, err := Decode(buf[:cut])
		if err != nil && !errors.Is(err, ErrShort) {
			t.Fatalf("cut %d: error %v is not ErrShort", cut, err)
		}
		if len(got) > len(msgs) || (len(got) > 0 && !reflect.DeepEqual(got, msgs[:len(got)])) {
			t.Fatalf("cut %d: decoded %#v", cut, got)
		}
	}
}

func TestHelloRunFork(t *testing.T) {
	h := Hello{Version: Version, Pid: 77, Modules: []Module{{Bias: 1, Start: 2, End: 3, Path: "/bin/prog"}, {Path: "/lib/x.so"}}}
	got, err := DecodeHello(EncodeHello(h))
	if err != nil || !reflect.DeepEqual(got, h) {
		t.Fatalf("hello: %+v %v", got, err)
	}
	r := Run{Tid: 3, Code: -110}
	gr, err := DecodeRun(EncodeRun(nil, r))
	if err != nil || gr != r {
		t.Fatalf("run: %+v %v", gr, err)
	}
	if _, err := DecodeHello([]byte{1, 2}); err == nil {
		t.Error("short hello accepted")
	}
	if len(EncodeFork(1, 2)) != 24 || len(EncodeQuit()) != 8 {
		t.Error("command sizes")
	}
	if gen, flags, err := DecodeFork(EncodeForkPool(5, 6, 7)); err != nil || gen != 5 || flags != 6 {
		t.Errorf("fork: %d %d %v", gen, flags, err)
	}
	// RESET is a bare header (type 19, no payload) after what buf holds.
	if got := EncodeReset([]byte{9}); !reflect.DeepEqual(got, []byte{9, 19, 0, 0, 0, 0, 0, 0, 0}) {
		t.Errorf("reset: % x", got)
	}
}

func TestSlotHandOver(t *testing.T) {
	mb, err := NewMailbox()
	if err != nil {
		t.Fatal(err)
	}
	defer mb.Close()
	s := mb.Slot(3)
	if mb.Slot(5).mem[0:1] == nil || &mb.Slot(5).mem[0] != &s.mem[0] || &mb.Slot(4).mem[0] == &s.mem[0] {
		t.Fatal("generations of the same parity must share a slot, others not")
	}
	s.Reset(3, FlagStacks)
	last := s.UpSeq()
	if err := s.Wait(last, time.Now().Add(20*time.Millisecond)); !errors.Is(err, ErrTimeout) {
		t.Fatalf("wait without a runtime: %v", err)
	}
	// Play the runtime from another goroutine: write a message and bump.
	go func() {
		time.Sleep(time.Millisecond)
		msg := EncodePending(nil, Pending{Tid: 1, Op: syncmodel.Op{Kind: syncmodel.Yield}, Frames: []uint64{9}})
		copy(s.mem[HdrSize+DownCap:], msg)
		*s.word(offUpLen) = uint32(len(msg))
		*s.word(offUpSeq) = last + 1
	}()
	if err := s.Wait(last, time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	evs, err := Decode(s.Up())
	if err != nil || len(evs) != 1 {
		t.Fatalf("%v %v", evs, err)
	}
	if err := s.Answer(EncodeRun(nil, Run{Tid: 1})); err != nil {
		t.Fatal(err)
	}
	if len(s.Up()) != 0 || *s.word(offDownSeq) != 1 {
		t.Error("answer did not hand the slot back")
	}
	if err := s.Answer(make([]byte, DownCap+1)); err == nil {
		t.Error("oversized answer accepted")
	}
	if _, dead := s.Dead(3); dead {
		t.Error("dead without a death")
	}
}

// TestBothSides plays the runtime's side against the checker's on one
// mailbox.
func TestBothSides(t *testing.T) {
	mb, err := NewMailbox()
	if err != nil {
		t.Fatal(err)
	}
	defer mb.Close()
	rt, err := OpenMailbox(int(mb.File().Fd()))
	if err != nil {
		t.Fatal(err)
	}
	ck := mb.Slot(4)
	ck.Reset(4, 0)
	side := rt.Slot(4)
	if side.Gen() != 4 {
		t.Fatalf("runtime sees generation %d", side.Gen())
	}
	// The checker's side reads the sequence before the runtime's side can
	// send: read after it, a first message sent already would be waited
	// for again, for ever.
	last := ck.UpSeq()
	done := make(chan error, 1)
	go func() {
		for i := 0; i < 100; i++ {
			last := side.DownSeq()
			if err := side.Send(EncodePending(nil, Pending{Tid: 1, Op: syncmodel.Op{Kind: syncmodel.Yield}, Frames: []uint64{uint64(i)}})); err != nil {
				done <- err
				return
			}
			b, err := side.WaitDown(last, time.Now().Add(5*time.Second))
			if err != nil {
				done <- err
				return
			}
			if r, err := DecodeRun(b); err != nil || r.Code != int64(i) {
				done <- fmt.Errorf("answer %d: %+v %v", i, r, err)
				return
			}
		}
		done <- nil
	}()
	for i := 0; i < 100; i++ {
		if err := ck.Wait(last, time.Now().Add(5*time.Second)); err != nil {
			t.Fatal(err)
		}
		last = ck.UpSeq()
		evs, err := Decode(ck.Up())
		if err != nil || len(evs) != 1 || evs[0].(Pending).Frames[0] != uint64(i) {
			t.Fatalf("message %d: %v %v", i, evs, err)
		}
		ck.Answer(EncodeRun(nil, Run{Tid: 1, Code: int64(i)}))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ck.MarkDead(4, 0)
	if _, dead := ck.Dead(4); !dead {
		t.Error("MarkDead not seen")
	}
}

// A Decoder hands ACCESS messages as *Accesses in room it reuses after
// Reuse, with the same contents as a plain decoding.
func TestDecoderAccesses(t *testing.T) {
	var buf []byte
	want := []Accesses{
		{Tid: 2, List: []Access{{Addr: 0x10, Size: 4, PC: 1}, {Addr: 0x18, Size: 8, Write: true, PC: 2}}},
		{Tid: 3, List: []Access{{Addr: 0x20, Size: 1, PC: 3}}},
	}
	for _, a := range want {
		buf = EncodeAccesses(buf, a)
	}
	var d Decoder
	for round := 0; round < 3; round++ {
		d.Reuse()
		evs, err := d.Append(nil, buf)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != len(want) {
			t.Fatalf("round %d: %d events, want %d", round, len(evs), len(want))
		}
		for i, ev := range evs {
			a, ok := ev.(*Accesses)
			if !ok || !reflect.DeepEqual(*a, want[i]) {
				t.Fatalf("round %d, event %d: %#v, want %#v", round, i, ev, want[i])
			}
		}
	}
	if allocs := testing.AllocsPerRun(20, func() {
		d.Reuse()
		if _, err := d.Append(make([]Event, 0, 4), buf); err != nil {
			t.Fatal(err)
		}
	}); allocs > 1 {
		t.Errorf("decoding two ACCESS messages again allocates %.0f times, want at most 1 (the events' slice)", allocs)
	}
}
