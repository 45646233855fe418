package wire

import (
	"testing"

	"github.com/stdbg/stdbg/internal/testkit/mutate"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// wireSeeds are well-formed messages of every kind the checker decodes.
func wireSeeds() [][]byte {
	var m []byte
	m = EncodePending(m, Pending{Tid: 2, OSTid: 77, Op: syncmodel.Op{Kind: syncmodel.MutexLock, Obj: 0x601040}, Frames: []uint64{0x401000, 0x401100}})
	m = EncodePending(m, Pending{Tid: 3, Op: syncmodel.Op{Kind: syncmodel.Select, Cases: []syncmodel.Case{{Send: true, Chan: 8, Cap: 1}, {Chan: 9}}}})
	m = EncodeDone(m, Done{Tid: 2})
	m = EncodeAccesses(m, Accesses{Tid: 2, List: []Access{{Addr: 0x601040, Size: 4, Write: true, PC: 0x401000}}})
	f := EncodeFailure(nil, Failure{Tid: 1, Kind: FailAssert, Message: "x > 0", Frames: []uint64{1, 2, 3}})
	return [][]byte{m, f, EncodeRun(nil, Run{Tid: 3, Code: -1}), EncodeReset(nil), EncodeQuit(), {}}
}

// checkDecode decodes buf: it must not panic, and it allocates no more
// than the input can describe (every slice it makes is backed by bytes of
// the input).
func checkDecode(t *testing.T, buf []byte) {
	evs, err := Decode(buf)
	if err != nil {
		return
	}
	n := 0
	for _, ev := range evs {
		switch v := ev.(type) {
		case Pending:
			n += 8*len(v.Frames) + 16*len(v.Op.Cases)
		case Failure:
			n += 8*len(v.Frames) + len(v.Message)
		}
	}
	if n > len(buf) {
		t.Fatalf("%d bytes decoded into %d bytes of frames, cases and messages", len(buf), n)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range wireSeeds() {
		f.Add(s)
	}
	f.Fuzz(checkDecode)
}

// TestDecodeMutated runs FuzzDecode's check on 20000 mutated messages.
func TestDecodeMutated(t *testing.T) {
	mutate.Inputs(wireSeeds(), 20000, func(b []byte) { checkDecode(t, b) })
}
