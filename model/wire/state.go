package wire

import "fmt"

// State describes the program state at the scheduling point that ends a
// transition, for stateful search. A runtime sends it with every hand-over
// of an execution forked with FlagState, after the PENDING messages.
type State struct {
	// Hash identifies the program's own memory (C targets: globals, the
	// heap blocks in use and each thread's stack; Go targets: the state the
	// program declared). The checker combines it with the threads'
	// positions and the synchronization model's state.
	Hash uint64
	// Progress reports that the program marked progress (stdbg_progress,
	// sthread.Progress) during the transition.
	Progress bool
	// Props are the values of the propositions the program registered
	// (stdbg_prop, sthread.Prop), in registration order.
	Props []Prop
}

// Prop is the value of a named proposition: true when Value != 0.
type Prop struct {
	Name  string
	Value int64
}

// State flags.
const stateProgress = 1

const stateFixed = 8 + 4 + 4

func decodeState(p []byte) (State, error) {
	if len(p) < stateFixed {
		return State{}, fmt.Errorf("state: %w", ErrShort)
	}
	st := State{Hash: le.Uint64(p), Progress: le.Uint32(p[8:])&stateProgress != 0}
	n := int(le.Uint32(p[12:]))
	off := stateFixed
	for i := 0; i < n; i++ {
		if len(p) < off+8 {
			return st, fmt.Errorf("state proposition %d: %w", i, ErrShort)
		}
		v := int64(int32(le.Uint32(p[off:])))
		l := int(le.Uint16(p[off+4:]))
		off += 8
		if len(p) < off+l {
			return st, fmt.Errorf("state proposition %d name: %w", i, ErrShort)
		}
		st.Props = append(st.Props, Prop{Name: string(p[off : off+l]), Value: v})
		off += l
	}
	return st, nil
}

// EncodeState appends a STATE message to buf. Proposition values are sent
// as 32-bit integers and names are cut at 65535 bytes.
func EncodeState(buf []byte, st State) []byte {
	n := stateFixed
	for _, pr := range st.Props {
		n += 8 + min(len(pr.Name), 0xffff)
	}
	buf = appendHdr(buf, MsgState, n)
	buf = le.AppendUint64(buf, st.Hash)
	var flags uint32
	if st.Progress {
		flags |= stateProgress
	}
	buf = le.AppendUint32(buf, flags)
	buf = le.AppendUint32(buf, uint32(len(st.Props)))
	for _, pr := range st.Props {
		name := pr.Name[:min(len(pr.Name), 0xffff)]
		buf = le.AppendUint32(buf, uint32(int32(pr.Value)))
		buf = le.AppendUint16(buf, uint16(len(name)))
		buf = le.AppendUint16(buf, 0)
		buf = append(buf, name...)
	}
	return buf
}
